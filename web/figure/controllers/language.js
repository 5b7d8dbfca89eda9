/* The figure's language (one feature of a figure: figure.js's controllers; docs/languages.md): which
 * language it shows, its catalog's Messages, the notices about it, and the model's about text, whose
 * words follow it.
 *
 *   build.json arrives ─▶ chosen: a link's lang, else options.chooseLanguage (the element's attribute,
 *   its page's <html lang>; the standalone page: the browser's), else the model's own, else English
 *     ─▶ its catalog (i18n/language.js, once per page) ─▶ the core writes every word again (wordsChanged)
 */
import { applyMessages, english, loadMessages, REFERENCE } from "../../i18n/language.js";
import { shown } from "../../lib/shown.js";

/**
 * @param figure   the core (figure.js): manifest, viewState, wordsChanged(), showNotice()
 * @param root     the figure's root element: its markup's words, its lang and dir (applyMessages)
 * @param el       the figure's parts: computedWhere, modelSize, modelCorpus, modelTraining, defaultStory
 * @param options  the figure's options: buildFolder, catalog, chooseLanguage, where (figure.js documents them)
 * @returns {messages, notices, choose(linked), changed(), follow(lang), use(lang), writeAbout(), destroy()}
 */
export function createLanguage(figure, root, el, options) {
  let messages = english; // the words of the language shown (i18n/messages.js)
  let asked = REFERENCE; // the language last asked for: an older catalog arriving late is not shown
  let noCatalog = null; // the notice's descriptor when the language asked for has no catalog
  let failed = null; // the notice's descriptor when its catalog could not be fetched
  let gone = false;
  if (options.where) { // another place than "in this tab": its message from now on, in every language
    el.computedWhere.dataset.text = options.where;
    messages.fill(el.computedWhere, options.where);
  }

  const language = {
    /** The words of the language shown: every part writes through them, reading them each time. */
    get messages() { return messages; },

    /** The notices about the language (one asked for without a catalog, a catalog not fetched). */
    get notices() { return [noCatalog, failed].filter(Boolean); },

    /** Show language `lang` (a tag with a catalog; null: English): its catalog fetched, the root
     *  declaring it, every word written again (the core's wordsChanged); the numbers stay, nothing is
     *  asked of Python. Where the catalog cannot be fetched, English stays and the notice says why. */
    async use(lang) {
      const wanted = lang ?? REFERENCE;
      asked = wanted;
      let loaded = english;
      let error = null;
      try {
        loaded = await loadMessages(wanted, options.buildFolder, options.catalog);
      } catch (reason) {
        error = { key: "language.notLoaded", params: { lang: wanted, reason: reason.message } };
      }
      if (gone || asked !== wanted) return; // gone, or another language asked for meanwhile
      failed = error;
      if (loaded === messages) figure.showNotice();
      else {
        messages = loaded;
        applyMessages(root, messages);
        language.writeAbout();
        figure.wordsChanged();
      }
    },

    /** Once build.json has arrived: `linked` (a tag a link asked for, url-state.js checked it), else
     *  options.chooseLanguage's choice, else the model's own language, else English. The view state
     *  keeps the language a course or a link asked for (a copied link carries it). */
    choose(linked) {
      const { manifest } = figure;
      const available = manifest.languages ?? [REFERENCE];
      const model = manifest.default_view?.lang ?? null; // a course's model trained with --lang (build.py train)
      const chosen = linked ? { lang: linked, asked: true, notice: null }
        : (options.chooseLanguage?.(available, model) ?? { lang: model, asked: false, notice: null });
      noCatalog = chosen.notice ?? null;
      const kept = chosen.asked ? chosen.lang : null;
      if (figure.viewState.get().lang !== kept) figure.viewState.update({ lang: kept });
      figure.showNotice();
      return language.use(chosen.lang);
    },

    /** What asks for the language changed (the element's lang attribute): chosen again. */
    changed() {
      if (figure.manifest) language.choose(undefined);
    },

    /** A link followed asked for language `lang` (or none: the language stays). */
    follow(lang) {
      if (lang && figure.manifest) language.choose(lang);
    },

    /** The model's about text (build.json's default view: its size, what it was trained on and how, the
     *  sentence about its default view) in the language shown; before build.json, build.py's English. */
    writeAbout() {
      const { manifest } = figure;
      if (!manifest) return;
      const { config, default_view: view } = manifest;
      el.modelSize.textContent = messages.text("about.modelSize", { layers: config.n_layer, heads: config.n_head });
      el.modelCorpus.textContent = shown(messages, view.about.corpus);
      el.modelTraining.textContent = shown(messages, view.about.training);
      el.defaultStory.textContent = shown(messages, view.story);
    },

    destroy() { gone = true; },
  };
  return language;
}
