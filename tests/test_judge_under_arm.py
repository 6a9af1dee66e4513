"""Cards handled where an arm hides the place or the pile: a card turned under an arm seen only over its
place and moved to a space; a hand seen over a pile just before its contact there laid a card judged; a card
laid from under an arm that turned two cards there. Found on the fresh games AM (fifteenth session); each
test is named after the rule it checks (a card lifted and put down under the arm, found on AO; a card laid
from under an arm before the next card turned there is read, found on AU, seventeenth session)."""

from __future__ import annotations

from test_judge import LAYOUT, _of, _opened
from test_judge_covered import _over

from referee.events import Event
from referee.observations import HandSeen


def _turned_under_an_arm_and_moved_to_a_space() -> tuple[list[Event], float]:
    """B plays 4♦ from B2 and 5♣ from B1 on R's 3♣ (B1 empty, B2 face down); B's hand then lies over B2,
    no contact seen, and touches B1, which shows J♥ once the hand has gone; B2 shows nothing. The time of
    the touch on B1."""
    film = _opened(layout=dict(LAYOUT, B1="5C"))  # R shows 3♣
    film.play("B", "B2", "back", "R")
    film.play("B", "B1", "empty", "R")
    film.still(6)
    _over(film, 8, HandSeen("B", ("B2",)))  # turning the card under the arm, no contact seen
    film.zones["B2"] = "empty"
    t = _over(film, 4, HandSeen("B", ("B2", "B1"), {"B1": film.t}))
    film.zones["B1"] = "JH"
    film.still(40)
    return film.judge(), t


def test_an_unknown_card_in_a_space_was_turned_on_a_face_down_top_its_players_hand_was_only_seen_over() -> None:
    events, t = _turned_under_an_arm_and_moved_to_a_space()
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("B", "B2", "JH")]
    assert [(e["player"], e["card"], e["from"], e["to"], e.t) for e in _of(events, "move_to_space")] \
        == [("B", "JH", "B2", "B1", t)]
    assert not _of(events, "resync")


def _covered_then_touched_then_a_card_turned_unseen() -> tuple[list[Event], float, float, float]:
    """A plays 9♥ from A2 on L's 8♦ (A2 face down); B plays 4♦ from B3 on R's 3♣, then turns K♥ on B3 under
    its arm and lifts it (B3 read face down again once the hand has gone: the card under it); A lifts 5♥ from A5 (seen lifted) and touches A2's
    face-down card, its hand over A2 from then on; it comes over R a frame before its contact there; B's
    hand touches R three frames after A's contact, and R shows the K♥, nothing read under it; B takes the
    K♥ back within a second. The times of A's and B's contacts, and of B's hand coming back for the K♥."""
    film = _opened(layout=dict(LAYOUT, B2="QH", B3="4D"))  # R shows 3♣
    film.play("A", "A2", "back", "L")  # 9♥ on 8♦
    film.play("B", "B3", "back", "R")
    film.still(6)
    _over(film, 6, HandSeen("B", ("B3",), {"B3": film.t}))  # K♥ turned and taken, never read in B3
    _over(film, 2, HandSeen("B", ()))
    film.touch("A", "A5", 2, then="back")
    _over(film, 2, HandSeen("A", ("A2",), {"A2": film.t}), HandSeen("B", ()))  # A's hand on A2's face-down card
    _over(film, 1, HandSeen("A", ("A2", "R")), HandSeen("B", ()))  # A's hand over R, its contact seen a frame later
    ta = film.t
    _over(film, 3, HandSeen("A", ("A2", "R"), {"R": ta}), HandSeen("B", ()))
    tb = film.t
    _over(film, 3, HandSeen("A", ("A2",)), HandSeen("B", ("R",), {"R": tb}))
    film.zones["R"] = "KH"
    _over(film, 24, HandSeen("A", ("A2",)))
    back = film.t
    _over(film, 3, HandSeen("A", ("A2",)), HandSeen("B", ("R",), {"R": back}))  # taken back
    film.zones["R"] = "5H"
    _over(film, 3, HandSeen("A", ("A2",)), HandSeen("B", ("B3",), {"B3": film.t}))
    film.zones["B3"] = "KH"
    film.still(40)
    return film.judge(), ta, tb, back


def test_a_hand_over_a_pile_just_before_its_contact_there_laid_its_card_at_that_contact() -> None:
    events, ta, tb, back = _covered_then_touched_then_a_card_turned_unseen()
    assert ("A", "5H", ta) in [(e["player"], e["card"], e.t) for e in _of(events, "play")]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "KH", tb)]
    assert _of(events, "illegal_play")[0]["called_at"] < back  # called while the K♥ lies on R, not waiting for A's card


def _two_turns_under_one_arm() -> list[Event]:
    """A plays 4♣ from A5 on R's 3♣ (A5 face down, four cards); A's hand then lies over A5 for two seconds:
    it touches A5 (turning 9♣ unseen), touches L with it just after B's hand touched L (laying nothing), L
    showing the 9♣ on its 8♦ once the hands have gone from L; it comes back over A5 and turns J♠ there,
    read only once the hand leaves A5; meanwhile B plays 5♦ from B1 on R (a move there was when the 9♣ was
    laid)."""
    film = _opened(layout=dict(LAYOUT, A5="4C", B1="5D"))  # L shows 8♦, R 3♣
    film.play("A", "A5", "back", "R")
    film.still(6)
    _over(film, 2, HandSeen("A", ("A5",), {"A5": film.t}))
    _over(film, 2, HandSeen("A", ("A5",), {"A5": film.t - 2 / 30}), HandSeen("B", ("L",), {"L": film.t}))
    t = film.t
    _over(film, 3, HandSeen("A", ("A5", "L"), {"L": t}))
    film.zones["L"] = "9C"
    film.zones["A5"] = "JS"
    arm = HandSeen("A", ("A5",))
    _over(film, 6, arm)
    _over(film, 2, arm, HandSeen("B", ("B1",), {"B1": film.t}))  # B plays 5♦ from B1 on R's 4♣
    film.zones["B1"] = "empty"
    _over(film, 4, arm)
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": film.t}))
    film.zones["R"] = "5D"
    _over(film, 21, arm)
    film.still(40)
    return film.judge()


def test_a_card_laid_from_under_an_arm_is_no_premature_spit_while_the_card_turned_there_was_first_read_after_it() -> None:
    events = _two_turns_under_one_arm()
    assert not _of(events, "premature_spit")


def _lifted_card_put_down_under_an_arm() -> list[Event]:
    """A plays 7♣ from A1 on L's 8♦ (A1 empty); A lifts K♦ from A3 (seen lifted, A3 face down under it), and
    its arm then lies over A1-A3: it puts the K♦ into A1 and turns J♠ on A3, all unseen, and touches L with
    the J♠ (no next of 7♣, a move there is: A's 2♠ on R's 3♣), taking it back a second later; A1 shows the
    K♦ and A3 the J♠ once the arm has gone."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")
    film.touch("A", "A3", 2, then="back")
    film.still(3)
    arm = HandSeen("A", ("A1", "A2", "A3"))
    _over(film, 10, arm)
    film.zones["A1"] = "KD"
    _over(film, 3, HandSeen("A", ("A1", "A2", "A3", "L"), {"L": film.t}))
    film.zones["L"] = "JS"
    _over(film, 20, arm)
    _over(film, 3, HandSeen("A", ("A1", "A2", "A3", "L"), {"L": film.t}))
    film.zones["L"] = "7C"
    film.zones["A3"] = "JS"
    _over(film, 10, arm)
    film.still(40)
    return film.judge()


def test_a_place_whose_top_is_lifted_counts_as_face_down_under_the_arm_for_a_premature_spit() -> None:
    events = _lifted_card_put_down_under_an_arm()
    assert not _of(events, "premature_spit")
    assert [(e["player"], e["card"], e["from"], e["to"]) for e in _of(events, "move_to_space")] \
        == [("A", "KD", "A3", "A1")]


def _turned_and_laid_then_another_turned_under_one_arm() -> tuple[list[Event], float, float]:
    """A plays 2♠ from A4 on R's 3♣ (A4 face down); A's hand then lies over A4, no contact seen there, and
    touches L with it, L showing 9♣ on its 8♦ once the hand has left L; the hand stays over A4 a while
    longer, and A4 shows J♠ once it has gone (its arm reached no other face-down place of A's). The times
    of the hand's coming over A4 and of its contact with L."""
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A4", "back", "R")
    film.still(6)
    came = film.t
    arm = HandSeen("A", ("A4",))
    _over(film, 4, arm)  # turning the 9♣ under the arm, no contact seen
    t = film.t
    _over(film, 3, HandSeen("A", ("A4", "L"), {"L": t}))
    film.zones["L"] = "9C"
    _over(film, 8, arm)  # turning the J♠
    film.zones["A4"] = "JS"
    film.still(40)
    return film.judge(), came, t


def test_a_card_laid_from_under_an_arm_was_turned_on_the_one_face_down_place_it_covered_before_the_card_read_there() -> None:
    events, came, t = _turned_and_laid_then_another_turned_under_one_arm()
    turned = _of(events, "turn_up")
    assert [(e["pile"], e["card"]) for e in turned] == [("A4", "9C"), ("A4", "JS")]
    assert turned[0].t == came and turned[1].t > t  # the 9♣ from the arm's coming, the J♠ after the 9♣ was laid
    assert [(e["card"], e["from"], e["to"]) for e in _of(events, "play")] == [("2S", "A4", "R"), ("9C", "A4", "L")]
    assert _of(events, "play")[1].t == t
    assert not _of(events, "resync") and not _of(events, "illegal_play")


def test_a_stock_top_seen_lifted_and_read_under_a_card_laid_on_it_was_laid_first_by_a_hand_never_seen_there() -> None:
    from test_judge_wrong_calls import _read_under
    film = _opened()  # R shows 3♣
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠ (its hand is never seen at R)
    film.touch("B", "B1", 2, then="empty")  # B lifts Q♠, which fits neither 3♣ nor 2♠
    film.still(3)
    tb = film.touch("B", "R", 3, then="QS")  # B lays Q♠: R shows it, the 2♠ read under it
    first = len(film.frames) - 1
    film.still(20)
    _read_under(film, first, "QS", "2S")
    events = film.judge()
    plays = [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")]
    assert plays[-1][:3] == ("A", "2S", "A4") and plays[-1][3] < tb
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "QS", tb, "Q♠ is not next to 2♠")]
