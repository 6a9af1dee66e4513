"""The event log of INTERFACES.md: every type with its fields, JSON Lines, appended and flushed."""

import json
from pathlib import Path

import pytest

from referee.events import REQUIRED_FIELDS, Event, EventLog, read_events, register_event_type
from referee.errors import BadEvent

EXAMPLES = {
    "play": {"player": "A", "card": "7C", "from": "A3", "to": "L"},
    "illegal_play": {"player": "B", "card": "9D", "to": "R", "reason": "9♦ is not next to J♣"},
    "turn_up": {"player": "A", "pile": "A2", "card": "QS"},
    "move_to_space": {"player": "B", "card": "4H", "from": "B5", "to": "B1"},
    "spit_call": {},
    "spit": {"cards": {"L": "3C", "R": "KD"}},
    "premature_spit": {"player": "A", "move": "7♣ from A3 onto L"},
    "race": {"pile": "L", "first": "A", "second": "B", "margin_ms": 41.5},
    "slap": {"pile": "R", "contact": {"A": 10.2, "B": 10.25}, "winner": "A", "margin_ms": 50,
             "evidence": "slaps/0001.jpg"},
    "deal_end": {"player": "A", "counts": {"A": 11, "B": 41}},
    "game_end": {"winner": "B"},
}


def test_every_interfaces_event_type_has_an_example() -> None:
    assert set(EXAMPLES) <= set(REQUIRED_FIELDS)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_each_event_type_round_trips_through_json(kind: str) -> None:
    event = Event.make(kind, 3.5, **EXAMPLES[kind])
    line = event.to_json()
    assert json.loads(line)["type"] == kind and json.loads(line)["t"] == 3.5
    assert Event.from_json(line) == event


@pytest.mark.parametrize("kind", sorted(k for k, v in EXAMPLES.items() if v))
def test_an_event_missing_a_required_field_is_rejected(kind: str) -> None:
    fields = dict(EXAMPLES[kind])
    missing = next(iter(fields))
    del fields[missing]
    with pytest.raises(BadEvent, match=missing):
        Event.make(kind, 1.0, **fields)


@pytest.mark.parametrize(
    "line, words",
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "play"}', "needs 't'"),
        ('{"t": -1, "type": "spit_call"}', "non-negative"),
        ('{"t": "soon", "type": "spit_call"}', "non-negative"),
        ('{"t": 1, "type": "shout"}', "unknown event type"),
        ('{"t": 1, "type": "play", "player": "Z", "card": "7C", "from": "A1", "to": "L"}', "player"),
        ('{"t": 1, "type": "play", "player": "A", "card": "7X", "from": "A1", "to": "L"}', "card code"),
        ('{"t": 1, "type": "play", "player": "A", "card": "7C", "from": "A1", "to": "Q"}', "pile name"),
        ('{"t": 1, "type": "deal_end", "player": "A", "counts": {"A": -3}}', "counts"),
    ],
)
def test_a_log_line_of_the_wrong_shape_is_a_clear_error(line: str, words: str) -> None:
    with pytest.raises(BadEvent, match=words):
        Event.from_json(line)


def test_extra_fields_are_welcome() -> None:
    event = Event.make("spit_call", 2.0, frame=60, confidence=0.99)
    assert event["frame"] == 60 and Event.from_json(event.to_json()) == event


def test_events_are_immutable() -> None:
    event = Event.make("game_end", 9.0, winner="A")
    with pytest.raises(TypeError):
        event.fields["winner"] = "B"  # type: ignore[index]


def test_a_game_may_register_its_own_event_type() -> None:
    register_event_type("burn_test", ("player",))
    assert Event.make("burn_test", 1.0, player="C")["player"] == "C"
    with pytest.raises(ValueError):
        register_event_type("burn_test", ("other",))


def test_the_log_is_appended_and_flushed_per_event(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    log = EventLog(path)
    log.append(Event.make("spit", 0.0, cards={"L": "3C", "R": "KD"}))
    # readable before the log is closed: nothing waits in a buffer
    assert [e.type for e in read_events(path)] == ["spit"]
    log.append(Event.make("spit_call", 1.0))
    log.close()
    with EventLog(path) as again:
        again.append(Event.make("game_end", 2.0, winner="A"))
    assert [e.type for e in read_events(path)] == ["spit", "spit_call", "game_end"]


def test_a_bad_line_in_a_log_names_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 0, "type": "spit_call"}\n\n{"t": 1, "type": "nope"}\n')
    with pytest.raises(BadEvent, match=r"bad.jsonl:3"):
        list(read_events(path))


def test_a_missing_log_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BadEvent, match="cannot read"):
        list(read_events(tmp_path / "missing.jsonl"))
