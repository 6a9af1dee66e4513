"""Calls against a player that rest on what the camera shows (24 Nov, thirteenth session, the wrong calls
left in the 520 dev games): a contact the hand finder gave to both spit piles, a second card in hand that
fits, a spit that looks like a guessed turn-up beside it, a place that lay unchanged at the touch, a card
found under a play that no hand was seen laying, and one touch laying two cards."""

from __future__ import annotations

from test_judge import Film, _opened

from referee.cards import parse_card
from referee.judge.judge import Judge
from referee.judge.spit.config import Lift
from referee.observations import HandSeen, Observation, ZoneReading
from referee.rules.spit import Play


def _judge_to(film: Film) -> Judge:
    judge = Judge("classic", fps=30.0)
    for obs in film.frames:
        judge.feed(obs)
    return judge


def test_a_contact_reported_on_both_spit_piles_refuses_no_unseen_card_on_either() -> None:
    """`_touched_both`: A's contact, dated once, is given to L and then to R (9458): where the card
    went is not known."""
    film = _opened()
    first = film.t
    for _ in range(2):
        film.frame((HandSeen("A", ("L",), {"L": first}),))
    for _ in range(2):
        film.frame((HandSeen("A", ("R",), {"R": first}),))
    film.still(4)
    referee = _judge_to(film).referee
    assert referee._touched_both("A", "L", first) and referee._touched_both("A", "R", first)
    assert not referee._touched_both("B", "L", first)
    later = film.touch("A", "L", 3)
    film.still(4)
    assert not _judge_to(film).referee._touched_both("A", "L", later)  # on L alone


def _two_lifted(second: bool) -> Judge:
    """A lifts K♦ from A3 and, where `second`, 2♠ from A4 (R shows 3♣, L 8♦)."""
    film = _opened()  # L: 8♦, R: 3♣
    film.touch("A", "A3", 2, then="back")
    film.still(5)
    if second:
        film.touch("A", "A4", 2, then="back")
        film.still(5)
    return _judge_to(film)


def test_another_card_lifted_that_fits_the_pile_keeps_a_refusal_at_the_touch_from_being_called() -> None:
    """`_other_lift_fits`: one hand lays one card; the touch on R may have laid the 2♠, which plays on
    the 3♣ read there, so the K♦ is not refused at it (9067)."""
    king = parse_card("KD")
    both = _two_lifted(second=True).referee
    assert {"KD", "2S"} <= set(both._lifted)
    assert both._other_lift_fits("A", king, "R", both._now[0])
    assert not both._other_lift_fits("A", king, "L", both._now[0])  # 2♠ does not play on 8♦
    alone = _two_lifted(second=False).referee
    assert not alone._other_lift_fits("A", king, "R", alone._now[0])


def test_a_touch_made_while_the_lifted_cards_place_lay_unchanged_is_not_that_cards() -> None:
    """`_still_in_place`: the lift is dated to the hand's first visit to A3, but A3 then lay clear and
    unchanged (still showing K♦) while A's hand touched L (9403)."""
    film = _opened()
    first = film.t
    film.over("A", "A3", 2)  # a first visit, nothing taken
    film.still(3)
    touched = film.touch("A", "L", 2)  # A3 clear meanwhile
    covered = film.t
    film.touch("A", "A3", 2, then="back")  # the card taken now
    film.still(5)
    referee = _judge_to(film).referee
    lift = Lift("A", "A3", first)
    assert referee._still_in_place(lift, touched)
    assert not referee._still_in_place(lift, covered)  # the hand over A3 then


def test_a_card_read_under_a_play_is_kept_per_pile_for_undoing_that_play() -> None:
    """`_under_tops`: a play undone for a card no hand was seen laying (`_laid_hidden`) needs that card
    read under the played one (or the played card's hand back over the pile); without either, the card
    may as well have been laid on top unseen (9296)."""
    film = _opened()  # R: 3♣
    for _ in range(4):
        t = film.t
        film.frames.append(Observation(t, len(film.frames), dict(
            {z: ZoneReading(v) for z, v in film.zones.items() if z != "R"}, R=ZoneReading("3C", under="4D")), ()))
    film.still(2)
    referee = _judge_to(film).referee
    assert ("3C", "4D") in referee._under_tops["R"]
    assert ("3C", "4D") not in referee._under_tops.get("L", {})


def test_a_touch_that_laid_a_card_judged_played_refuses_no_other_card_of_its_player() -> None:
    """`_touch_laid_other`: one hand lays one card; the engine played J♥ at A's touch on R, so the J♦
    read there later is not refused at that same touch (9306)."""
    referee = _judge_to(_opened()).referee
    t = referee._now[0]
    referee._made.append((t, Play("A", parse_card("JH"), "A4", "R")))
    jack = parse_card("JD")
    assert referee._touch_laid_other("A", jack, "R", t)
    assert not referee._touch_laid_other("A", jack, "L", t)  # another pile
    assert not referee._touch_laid_other("A", jack, "R", t + 0.5)  # another touch
    assert not referee._touch_laid_other("A", parse_card("JH"), "R", t)  # the card played itself
