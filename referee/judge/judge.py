"""The whole vision-free pipeline: observations through the tracker into the referee, events out.

>>> import random
>>> from referee.simulate import simulate_game
>>> from referee.judge.camera import observe_log
>>> game = simulate_game("classic", random.Random(12))
>>> events = judge(observe_log(game.events, "classic"), "classic")
>>> [e.type for e in events][:3]
['layout', 'spit', 'play']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from referee.events import Event
from referee.judge.speahx import SpeahxReferee, is_speahx
from referee.judge.spit.config import RefereeConfig
from referee.judge.spit.referee import SpitReferee
from referee.observations import Observation
from referee.rules import get_rules
from referee.tracker import Tracker, TrackerConfig


class Judge:
    """Feeds observations (`feed`) through a `Tracker` into the referee of the rule set (Spit's
    or Speahx's pile referee); each call is returned and passed to `on_event`. The contacts'
    time resolution is `1 / fps` when the stream's rate is known, else the shortest interval
    between frames seen so far."""

    def __init__(self, rules: str | Any = "classic", *, tracker: TrackerConfig = TrackerConfig(),
                 referee: RefereeConfig = RefereeConfig(), fps: float | None = None,
                 on_event: Callable[[Event], None] | None = None) -> None:
        rules = get_rules(rules) if isinstance(rules, str) else rules
        self.tracker = Tracker(tracker)
        self.referee: SpitReferee | SpeahxReferee = (
            SpeahxReferee(rules, on_event=on_event) if is_speahx(rules)
            else SpitReferee(rules, replace(referee, settle_frames=tracker.settle_frames), on_event))
        self._fixed = fps is not None
        if fps is not None:
            self.referee.frame_interval = 1.0 / fps
        self._last_t: float | None = None
        self.frames = 0

    def feed(self, obs: Observation) -> list[Event]:
        """One frame in; the calls made at this frame."""
        if not self._fixed and self._last_t is not None:
            step = obs.t - self._last_t
            if 0 < step < self.referee.frame_interval or self.frames == 1:
                self.referee.frame_interval = step
        self._last_t = obs.t
        self.frames += 1
        return self.referee.update(self.tracker.update(obs))

    def finish(self) -> list[Event]:
        """The stream has ended: the calls still waiting for frames, drawn from what was seen."""
        return self.referee.finish()


def judge(observations: Iterable[Observation], rules: str | Any = "classic", **options: Any) -> list[Event]:
    """Every call of a whole observation stream (`options` as `Judge`'s)."""
    j = Judge(rules, **options)
    out: list[Event] = []
    for obs in observations:
        out.extend(j.feed(obs))
    return out + j.finish()
