"""web/lib/throttle.js (the element's attention-live:change events and the iframe's state messages: at
most one every 200 ms) on a clock of its own: Node runs the module with performance.now and setTimeout
replaced by a simulated clock, so that the test holds on any machine, however loaded (issue 54, part 6).
The expected sends come from a model of the rule written here, not from the module: a change is sent at
the first moment that is at least its own time and at least 200 ms after the last send, one send for
all the changes waiting then; a send made outside (sent(), an answer to getState) counts as a send."""

import json
import subprocess

import pytest

import build

MS = 200
RUN = """
let now = 0;
const timers = [];
globalThis.performance = { now: () => now };
globalThis.setTimeout = (callback, delay) => { timers.push({ at: now + Math.max(0, delay), callback, order: timers.length }); };
const { throttled } = await import(process.argv[1]);
const [ms, changes, outside] = JSON.parse(process.argv[2]);
const sends = [];
const throttle = throttled(ms, () => sends.push(now));
const events = [...changes.map((at) => ({ at, what: "change" })), ...outside.map((at) => ({ at, what: "outside" }))].sort((a, b) => a.at - b.at);
const runTimersUntil = (time) => { // every timer due by `time`, in order of due time, then of setting
  for (;;) {
    timers.sort((a, b) => a.at - b.at || a.order - b.order);
    if (!timers.length || timers[0].at > time) return;
    const timer = timers.shift();
    now = timer.at;
    timer.callback();
  }
};
for (const event of events) {
  runTimersUntil(event.at - 1e-9); // a timer due at the same moment as an event runs after it (the event's task came first)
  now = event.at;
  if (event.what === "change") throttle.changed();
  else { throttle.sent(); sends.push(now); }
}
runTimersUntil(Infinity);
console.log(JSON.stringify(sends));
"""


def sends_of(changes, outside=()):
    """The simulated times (ms) of every send for changes at `changes` and sends outside at `outside`."""
    script = ["node", "--input-type=module", "-e", RUN, (build.ROOT / "web" / "lib" / "throttle.js").as_uri(), json.dumps([MS, list(changes), list(outside)])]
    return json.loads(subprocess.run(script, capture_output=True, text=True, check=True).stdout)


def model(changes, outside=()):
    """The rule, independently: each waiting change goes at max(its time, last send + MS), with those
    waiting then; an outside send is a send."""
    events = sorted([(t, "change") for t in changes] + [(t, "outside") for t in outside])
    sends, last, waiting_since = [], float("-inf"), None
    for t, what in events:
        if waiting_since is not None and max(waiting_since, last + MS) < t:  # the waiting send goes first
            last = max(waiting_since, last + MS)
            sends.append(last)
            waiting_since = None
        if what == "outside":
            last = t
            sends.append(t)
        elif waiting_since is None:
            waiting_since = t
    if waiting_since is not None:
        sends.append(max(waiting_since, last + MS))
    return sends


@pytest.mark.parametrize("changes, outside", [
    (range(0, 1001, 10), ()),  # typing: a change every 10 ms for a second
    ([0], ()),  # one change: sent at once
    ([0, 500, 1200], ()),  # changes after quiet intervals: each at once
    ([0, 50, 50, 50, 199, 201, 399, 400], ()),  # bursts, and changes at the edges of an interval
    (range(0, 2000, 37), [120, 777]),  # getState answered meanwhile: the next throttled send waits 200 ms after it
])
def test_at_most_one_send_every_200_ms_and_the_last_change_always_sent(changes, outside):
    sends = sends_of(changes, outside)
    assert sends == model(changes, outside)
    assert all(b - a >= MS for a, b in zip(sends, sends[1:]) if b not in outside)  # a throttled send: 200 ms after any send
    assert sends[-1] >= max(changes)  # the last change is never dropped
