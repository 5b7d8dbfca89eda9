/* Python's answers for the panels: Figure.explain (the math of the selected row, and a what-if row),
 * Figure.flash (that row computed tile by tile), Figure.predict (the next token) and Figure.rollout
 * (attention stacked on attention), each kept with the view it answers, so that a new result or
 * a new view asks again and an answer that arrives for an older view is never drawn.
 *
 *   key: the result (its sequence number) and the parts of the view state the answer depends on
 */
const KINDS = {
  explain: {
    key: (result, s) => [result.seq, s.layer, s.head, s.token, s.whatIf.scale, s.whatIf.mask].join("|"),
    fields: (s) => ({ layer: s.layer, head: s.head, token: s.token, scale: s.whatIf.scale, mask: s.whatIf.mask, knockout: s.knockout }),
  },
  flash: {
    key: (result, s) => [result.seq, s.layer, s.head, s.token, s.flash.tile].join("|"),
    fields: (s) => ({ layer: s.layer, head: s.head, token: s.token, tile: s.flash.tile }),
  },
  predict: {
    key: (result, s) => [result.seq, s.token].join("|"),
    fields: (s) => ({ token: s.token, top: 5, knockout: s.knockout }),
  },
  rollout: { // the result's what-ifs are the state's (the text is computed again when they change)
    key: (result, s) => [result.seq, s.layer, s.head, s.token].join("|"),
    fields: (s) => ({ layer: s.layer, head: s.head, token: s.token, knockout: s.knockout,
      what_if: s.whatIf.scale && s.whatIf.mask ? null : [s.layer, s.head, s.whatIf.scale, s.whatIf.mask] }),
  },
};

/** `current()` gives the [result, state] on screen now; `onAnswer(kind)` is called when an answer for
 *  it has arrived, and `onAnswer(null)` when a request failed (nothing new: the panel stays as it was). */
export function createAnswers(current, onAnswer) {
  const held = { explain: null, flash: null, predict: null, rollout: null }; // {key, value}: the newest answer of each kind
  const asked = { explain: null, flash: null, predict: null, rollout: null }; // the key of the request on its way

  return {
    /** The answer of `kind` for `result` and `state`, or null while it has not arrived. */
    get(kind, result, state) {
      const key = KINDS[kind].key(result, state);
      return held[kind]?.key === key ? held[kind].value : null;
    },
    /** The answer of `kind` for `result` and `state`: the one held, or asked of `worker` now (a Promise). */
    async wait(kind, worker, result, state) {
      return this.get(kind, result, state) ?? worker.ask(kind, KINDS[kind].fields(state));
    },
    /** True while the answer of one of `kinds` for `result` and `state` is on its way. */
    onTheirWay(kinds, result, state) {
      return kinds.some((kind) => asked[kind] === KINDS[kind].key(result, state));
    },
    /** Ask `worker` for `kind` for `result` and `state`, unless that answer is held or on its way. */
    ask(kind, worker, result, state) {
      const key = KINDS[kind].key(result, state);
      if (held[kind]?.key === key || asked[kind] === key) return;
      asked[kind] = key;
      const done = () => { if (asked[kind] === key) asked[kind] = null; };
      worker.ask(kind, KINDS[kind].fields(state)).then((value) => {
        done();
        const [nowResult, nowState] = current();
        if (nowResult && KINDS[kind].key(nowResult, nowState) === key) {
          held[kind] = { key, value };
          onAnswer(kind);
        }
      }, () => { // a failed request leaves the panel as it was; the next edit asks again
        done();
        onAnswer(null);
      });
    },
  };
}
