"""The observation format: validated when built, JSON Lines round trips, typed errors naming the line."""

from __future__ import annotations

import io

import pytest

from referee.observations import (
    BadObservation,
    HandSeen,
    LooseCard,
    Observation,
    ObservationStream,
    StreamHeader,
    ZoneReading,
    read_observations,
    write_observations,
)


def _obs(i: int, **zones: str) -> Observation:
    return Observation(i / 30, i, {z: ZoneReading(v) for z, v in zones.items()})


def test_observation_round_trips_through_json() -> None:
    obs = Observation(
        1.5, 45,
        {"L": ZoneReading("10H", 0.91, ((0, 0), (1, 0), (1, 2), (0, 2))), "A3": ZoneReading("back"),
         "B1": ZoneReading("empty"), "R": ZoneReading("occluded")},
        (HandSeen("A", ("L", "A3"), {"L": 1.466667}, (3.0, 4.5), under=("B",), beneath=("B",)),
         HandSeen("B", ("L",), {"L": 1.5})),
        (LooseCard("7C", 0.8, (10.0, 20.0)),),
    )
    assert Observation.from_json(obs.to_json()) == obs


def test_a_hand_seen_beneath_no_arm_leaves_beneath_out_of_its_json() -> None:
    assert "beneath" not in HandSeen("B", ("L",), {"L": 1.5}).to_dict()
    assert HandSeen("B", ("L",), {"L": 1.5}, beneath=("A",)).to_dict()["beneath"] == ["A"]


def test_zone_shorthand_is_a_certain_reading() -> None:
    obs = Observation.from_json('{"t": 0, "frame": 0, "zones": {"A1": "7C", "L": {"seen": "empty"}}}')
    assert obs.zones["A1"] == ZoneReading("7C", 1.0) and obs.zones["L"].seen == "empty"


@pytest.mark.parametrize("line, words", [
    ('{"t": 0, "frame": 0, "zones": {"L": "7X"}}', "zone L: '7X' is not a card code"),
    ('{"t": 0, "frame": 0, "zones": {"Q9": "7C"}}', "'Q9' is not a zone name"),
    ('{"t": -1, "frame": 0, "zones": {}}', "t must not be negative"),
    ('{"t": 0, "frame": 1.5, "zones": {}}', "frame must be a whole number"),
    ('{"t": 0, "frame": 0, "zones": {"L": {"seen": "7C", "confidence": 2}}}', "confidence must be a number in 0..1"),
    ('{"t": 0, "frame": 0, "zones": {}, "hands": [{"side": "Z", "over": []}]}', "side must be a player"),
    ('{"t": 0, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": [], "contact": {"L": 0}}]}',
     "touching L must be over it"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "contact": {"L": 2}}]}',
     "later than the frame"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "under": ["B"]}]}',
     "under another player's hand must touch a zone"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "contact": {"L": 1}, "under": ["A"]}]}',
     "under another player's hand"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "beneath": ["B"]}]}',
     "beneath another player's arm must touch a zone"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "contact": {"L": 1}, "beneath": ["A"]}]}',
     "beneath another player's arm"),
    ('{"t": 1, "frame": 0, "zones": {}, "hands": [{"side": "A", "over": ["L"], "contact": {"L": 1}, "beneath": "B"}]}',
     "'beneath' is a list of sides"),
    ('{"t": 0, "frame": 0}', "needs 'zones'"),
    ('{"t": 0, "frame": 0, "zones": {}, "colour": 1}', "unknown observation field"),
    ("[1, 2]", "an observation is a JSON object"),
    ("{oops", "not JSON"),
])
def test_bad_line_raises_a_typed_error_with_its_number(line: str, words: str) -> None:
    good = _obs(0, L="7C").to_json()
    with pytest.raises(BadObservation, match=r"<observations>:2: .*" + words.replace("(", r"\(").replace(")", r"\)")):
        list(read_observations([good, line]))


def test_frames_must_come_in_capture_order() -> None:
    lines = [_obs(1, L="7C").to_json(), _obs(0, L="7C").to_json()]
    with pytest.raises(BadObservation, match="<observations>:2: frame 0 at 0.0 s does not come after frame 1"):
        list(read_observations(lines))


def test_header_line_is_read_and_written(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    head = StreamHeader(fps=30.0, rules="classic", source="test")
    assert write_observations(out, [_obs(0, L="7C"), _obs(2, L="8C")], head) == 2
    path = tmp_path / "obs.jsonl"
    path.write_text(out.getvalue())
    stream = ObservationStream(path)
    frames = list(stream)
    assert stream.header == head and [o.frame for o in frames] == [0, 2]


def test_header_must_come_first() -> None:
    with pytest.raises(BadObservation, match=":2: the header must be the first line"):
        list(read_observations([_obs(0).to_json(), '{"observations": 1}']))


def test_unreadable_file_is_a_typed_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BadObservation, match="cannot read observations"):
        list(read_observations(tmp_path / "missing.jsonl"))


def test_observations_are_frozen() -> None:
    obs = _obs(0, L="7C")
    with pytest.raises(AttributeError):
        obs.t = 2.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        obs.zones["L"] = ZoneReading("8C")  # type: ignore[index]
