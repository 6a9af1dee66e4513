"""Fuzzing the judge: random and flickering observation streams never crash it, and one flickering frame never makes a call."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import ALL_CARDS
from referee.judge.judge import Judge
from referee.observations import HandSeen, Observation, ZoneReading

ZONES = ("L", "R", "A1", "A2", "A3", "A4", "A5", "B1", "B2", "B3", "B4", "B5")
SEEN = st.sampled_from([c.code for c in ALL_CARDS] + ["back", "empty", "occluded"])
LAYOUT = {"A1": "7C", "A2": "9H", "A3": "KD", "A4": "2S", "A5": "5H",
          "B1": "QS", "B2": "4D", "B3": "8S", "B4": "JD", "B5": "AC", "L": "8D", "R": "3C"}

frames = st.lists(
    st.tuples(
        st.dictionaries(st.sampled_from(ZONES), st.tuples(SEEN, st.floats(0, 1)), max_size=len(ZONES)),
        st.lists(st.tuples(st.sampled_from("AB"), st.lists(st.sampled_from(ZONES), max_size=3, unique=True),
                           st.booleans()), max_size=3),
    ),
    max_size=120,
)


def _observation(i: int, zones: dict[str, tuple[str, float]], hands: list[tuple[str, list[str], bool]]) -> Observation:
    t = round(i / 30, 6)
    seen = [HandSeen(side, tuple(over), {over[0]: t} if touch and over else {}) for side, over, touch in hands]
    return Observation(t, i, {z: ZoneReading(v, c) for z, (v, c) in zones.items()}, tuple(seen))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames)
def test_random_observation_streams_never_crash(stream: list) -> None:  # type: ignore[type-arg]
    judge = Judge("classic", fps=30.0)
    for i, (zones, hands) in enumerate(stream):
        for event in judge.feed(_observation(i, zones, hands)):
            assert event.t <= i / 30 + 1e-6  # a call is never dated after the frame that made it


@settings(max_examples=60, deadline=None)
@given(st.integers(12, 60), st.sampled_from(ZONES), SEEN, st.integers(1, 2), st.integers(0, 1))
def test_one_flickering_frame_makes_no_call(at: int, zone: str, shows: str, frames_long: int, k_extra: int) -> None:
    judge = Judge("classic", fps=30.0)
    calls = []
    for i in range(90):
        zones = dict(LAYOUT)
        if at <= i < at + frames_long:
            zones[zone] = shows  # a flicker of one or two frames (the tracker settles after three)
        calls.extend(judge.feed(Observation(round(i / 30, 6), i, {z: ZoneReading(v) for z, v in zones.items()})))
    assert [e.type for e in calls] == ["layout", "spit"]
