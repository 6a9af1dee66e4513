"""The hands' first contacts scored against true touches (`referee.judge.contacts`)."""

from __future__ import annotations

import doctest

from referee.events import Event
from referee.judge import contacts
from referee.judge.contacts import score_contacts
from referee.observations import HandSeen, Observation


def _seen(t: float, side: str, zone: str, contact_t: float) -> Observation:
    return Observation(t, round(t * 30), {}, hands=(HandSeen(side, (zone,), {zone: contact_t}),))


def test_a_touch_is_found_only_by_the_same_sides_contact_on_its_zone_near_its_time() -> None:
    truth = [Event.make("play", 1.0, player="A", card="7C", **{"from": "A3", "to": "L"}),
             Event.make("turn_up", 2.0, player="B", pile="B2", card="9H"),
             Event.make("illegal_play", 3.0, player="A", card="KD", to="R", reason="K♦ is not next to 5♣"),
             Event.make("play", 4.0, player="B", card="QS", **{"from": "B1", "to": "R"})]
    seen = [_seen(1.1, "A", "L", 1.0333),  # found, one frame late
            _seen(2.3, "B", "B2", 2.27),  # a turning hand at rest 0.27 s after its touch: too late
            _seen(3.1, "A", "L", 3.0),  # the wrong pile
            _seen(4.1, "A", "R", 4.0)]  # the wrong hand
    score = score_contacts(truth, seen)
    assert score.touches == {"landing": 3, "turn_up": 1}
    assert score.found == {"landing": 1} and abs(score.errors["landing"][0] - 0.0333) < 1e-9


def test_a_slap_is_two_touches_and_truth_after_the_last_frame_is_left_out() -> None:
    truth = [Event.make("slap", 5.0, pile="L", contact={"A": 5.0, "B": 5.05}, winner="A", margin_ms=50,
                        evidence="slap-L-5.000.png"),
             Event.make("turn_up", 9.0, player="A", pile="A1", card="2C")]
    seen = [_seen(5.1, "A", "L", 5.0), _seen(5.1, "B", "L", 5.0667)]
    score = score_contacts(truth, seen)
    assert score.touches == {"slap": 2} and score.found == {"slap": 2}


def test_the_contact_scoring_examples_run() -> None:
    assert doctest.testmod(contacts).failed == 0
