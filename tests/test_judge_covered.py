"""The referee's calls where arms hide places and cards are covered before they are read: each test is named after the call it checks."""

from __future__ import annotations

from test_judge import FPS, LAYOUT, Film, _of, _opened

from referee.cards import parse_card
from referee.judge.cli import describe
from referee.judge.judge import Judge
from referee.judge.spit.config import Lift
from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen
from referee.rules.spit import Play, SpitRules, SpitState, TurnUp
from referee.tracker import Touch


def _over(film: Film, n: int, *hands: HandSeen) -> float:
    """`n` frames with `hands` (and nothing else) over the table; the first one's time."""
    t = film.t
    for _ in range(n):
        film.frame(hands)
    return t


def _rival_card_laid_on_a_card_laid_unseen(contact_seen: bool) -> None:
    """A lays 2♠ on R under its arm, no contact seen; B lays 4♦ on it (it would fit on 3♣) and takes
    it back, its contact there seen or not: A's 2♠ is played, B's 4♦ refused on it."""
    film = _opened()  # R shows 3♣
    arm = HandSeen("A", ("A4",), {})
    _over(film, 4, arm)  # A's arm over A4 (no contact seen): A takes 2♠
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {}))  # and lays it on R, its contact not seen
    _over(film, 2, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": tb}))  # and lays it on the 2♠
    film.zones["R"] = "4D"
    _over(film, 6, arm)
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": film.t} if contact_seen else {}))  # B takes it back: 2♠ shows
    film.zones["R"] = "2S"
    _over(film, 6, arm)
    film.zones["B2"] = "4D"
    film.zones["A4"] = "back"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")] == [("A", "2S", "A4", ta)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "4D", tb)]


def test_a_card_turned_and_laid_with_its_place_under_the_hand_is_played_before_another_card_covers_it() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    film.zones["R"] = "3H"
    arm = HandSeen("A", ("A4",), {})
    _over(film, 6, arm)  # 3♥ read on R, A4 still hidden
    _over(film, 2, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    _over(film, 3, arm)
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": tb}))  # and lays it on the 3♥
    film.zones["R"] = "4D"
    _over(film, 6, arm)
    film.still(10)  # the arm leaves: A4 shows the next face-down card
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("A", "3H", "A4", ta), ("B", "4D", "B2", tb)]
    assert not _of(events, "illegal_play") and not _of(events, "resync")


def test_a_card_turned_and_laid_under_the_hand_is_played_before_a_card_covers_it_touched_by_both_hands_at_once() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows a face-down card
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 too
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    film.zones["R"] = "3H"
    arm = HandSeen("A", ("A4",), {})
    _over(film, 6, arm)  # 3♥ read on R, A4 still hidden
    _over(film, 2, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    _over(film, 3, arm)
    tb = film.t  # B lays it on the 3♥, A's hand back on R in the same frame (listed last)
    _over(film, 3, HandSeen("B", ("R",), {"R": tb}), HandSeen("A", ("A4", "R"), {"R": tb}))
    film.zones["R"] = "4D"
    _over(film, 6, arm)
    film.still(40)  # the arm leaves: A4 shows the next face-down card
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("A", "3H", "A4", ta), ("B", "4D", "B2", tb)]
    assert not _of(events, "illegal_play")


def test_a_touch_that_laid_a_stock_top_seen_on_the_pile_lays_no_other_card_its_hand_lifted() -> None:
    film = _opened()  # R shows 3♣
    film.still(60)  # B's hand last touched R at the spit, long before
    _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦ (seen lifted)
    film.zones["B2"] = "back"
    _over(film, 3, HandSeen("B", ("B2", "B5"), {}))  # its arm over B5 too: it takes A♣ there unseen
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠
    film.zones["A4"] = "back"
    film.still(3)
    t = film.t  # both hands on R in the same frame: A♣ read on top, on the 2♠
    _over(film, 3, HandSeen("A", ("R",), {"R": t}), HandSeen("B", ("B5", "R"), {"R": t}))
    film.zones["R"] = "AC"
    _over(film, 6, HandSeen("B", ("B5",), {}))
    film.zones["B5"] = "back"
    film.zones["B2"] = "4D"  # the 4♦ was never laid: back in its place
    film.still(40)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "2S", t), ("B", "AC", t)]
    assert not _of(events, "illegal_play")


def test_a_refused_card_taken_back_under_the_arm_is_not_refused_again_at_its_hand_lingering_on_the_pile() -> None:
    film = _opened()  # L shows 8♦
    t = film.play("A", "A3", "back", "L")  # K♦ onto 8♦: refused
    arm = HandSeen("A", ("A3",), {})
    _over(film, 3, HandSeen("A", ("A3", "L"), {"L": film.t}))  # A takes it off L, its arm over A3
    film.zones["L"] = "8D"
    _over(film, 3, arm)
    _over(film, 3, HandSeen("A", ("A3", "L"), {"L": film.t}))  # its hand on L again, the K♦ back under the arm
    _over(film, 20, arm)
    film.zones["A3"] = "KD"  # the arm leaves: K♦ read back in its place
    film.still(20)
    assert [(e["card"], e.t) for e in _of(film.judge(), "illegal_play")] == [("KD", t)]


def test_an_unknown_card_laid_after_another_player_touched_the_pile_is_no_illegal_play_of_theirs_where_it_does_not_fit() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♦ on A4 and takes it, unseen
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": film.t}))  # and lays it on R, not read
    tb = film.t
    _over(film, 3, HandSeen("B", ("R",), {"R": tb}))  # B lays a spit card on it: 9♠, no stalemate
    film.zones["R"] = "9S"
    film.still(12)
    film.touch("B", "R", 3, then="3D")  # B takes the 9♠ back: A's 3♦ shows
    film.still(12)
    events = film.judge()
    assert not _of(events, "illegal_play")
    assert [(e["player"], e["card"], e["from"]) for e in _of(events, "play")][-1] == ("A", "3D", "A4")


def test_a_stock_place_not_read_since_its_card_was_played_makes_no_re_read_of_the_table() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("A", ("A4",), {})
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))  # A takes 2♠ under an arm that stays on A4
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R
    film.zones["R"] = "2S"
    film.zones["A4"] = "back"  # (never read: the arm hides it)
    _over(film, 6, arm)
    _over(film, 2, arm, HandSeen("B", ("B5",), {"B5": film.t}))  # B lifts A♣
    film.zones["B5"] = "back"
    _over(film, 3, arm)
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": tb}))  # and lays it on the 2♠
    film.zones["R"] = "AC"
    _over(film, 75, arm)  # the arm stays for 2.5 s
    film.frame(unread=("A4",))  # the arm gone, A4 not read yet
    _over(film, 6, arm)
    film.still(10)
    events = film.judge()
    assert [(e["card"], e["from"], e.t) for e in _of(events, "play")] == [("2S", "A4", ta), ("AC", "B5", tb)]
    assert not _of(events, "resync") and not _of(events, "illegal_play")


def test_a_card_covered_before_it_was_read_is_played_once_the_card_turned_under_it_in_its_place_shows() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("A", ("A4",), {})
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))  # A takes 2♠ under an arm that stays on A4
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, not read
    _over(film, 2, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    _over(film, 3, arm)
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": tb}))  # and lays it on the unread 2♠ (4♦ would fit on 3♣)
    film.zones["R"] = "4D"
    _over(film, 6, arm)
    film.zones["A4"] = "6H"  # the arm leaves: A turned 6♥ under the 2♠
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "2S", ta)]
    assert [(e["player"], e["card"]) for e in _of(events, "illegal_play")] == [("B", "4D")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("A", "B")]
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "6H")]


def test_a_card_laid_after_a_refused_card_was_taken_off_the_pile_is_played_at_its_touch() -> None:
    film = _opened()  # R shows 3♣
    film.play("B", "B3", "back", "R")  # 8♠ onto 3♣: refused
    film.touch("B", "R", 3, then="3C")  # B takes it off R (B3 not read again yet: 8♠ in B's hand)
    film.still(6)
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(4)
    tb = film.touch("B", "R", 3)  # and lays it on 3♣
    _over(film, 3, HandSeen("A", ("A5",), {"A5": film.t}))  # A lifts 5♥
    film.zones["A5"] = "back"
    ta = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))  # and lays it on the 4♦ before that is read
    film.zones["R"] = "5H"
    film.still(10)
    film.zones["B3"] = "8S"  # B's 8♠ back in its place
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb), ("A", "5H", ta)]
    assert [(e["card"], e["reason"]) for e in _of(events, "illegal_play")] == [("8S", "8♠ is not next to 3♣")]


def test_a_card_back_in_its_place_is_not_refused_at_a_touch_of_its_player_after_they_lifted_another_card() -> None:
    film = _opened()  # R shows 3♣
    film.play("B", "B3", "back", "R")  # 8♠ onto 3♣: refused
    film.touch("B", "R", 3, then="3C")  # B takes it off R (8♠ in B's hand, B3 showing the card under it)
    film.still(80)  # and holds it for a while
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(4)
    tb = film.touch("B", "R", 3, then="4D")  # and lays it on 3♣
    film.zones["B3"] = "8S"  # 8♠ back in its place, R not read yet
    for _ in range(6):
        film.frame(unread=("R",))
    film.still(10)
    events = film.judge()
    assert [e["card"] for e in _of(events, "illegal_play")] == ["8S"]  # its refusal on 3♣, once
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb)]


def test_a_card_lifted_after_its_player_s_hand_touched_a_pile_is_not_refused_at_that_touch() -> None:
    film = _opened()  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣
    t = film.t
    for i in range(8):  # B5 left out, not read (something changed there, the hand not seen yet) ...
        touching = (HandSeen("B", ("R",), {"R": round(t + 3 / 30, 6)}),) if 3 <= i < 5 else ()
        film.frame(touching, unread=("B5",))  # ... while B's hand is back on R for a moment, holding nothing
    film.touch("B", "B5", 2, then="back")  # only now B lifts A♣
    film.still(4)
    film.touch("A", "A5", 2, then="back")  # A lifts 5♥
    film.still(4)
    ta = film.touch("A", "R", 3, then="5H")  # and plays it on 4♦
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("A", "5H", ta)
    assert not _of(events, "illegal_play")


def test_a_card_whose_hand_touched_an_empty_place_on_its_way_to_a_pile_is_moved_there_and_played_from_there() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")  # 7♣ onto 8♦: A1 is a space
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.still(2)
    tm = film.touch("A", "A1", 10)  # lays it in the space under the hand, never read there, and takes it again
    film.still(4)
    tp = film.touch("A", "R", 3, then="2S")  # plays it on 3♣ (0.47 s after; 0.57 s at the least on the rendered games)
    film.still(10)
    events = film.judge()
    assert [(e["card"], e["from"], e["to"], e.t) for e in _of(events, "move_to_space")] == [("2S", "A4", "A1", tm)]
    assert [(e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("2S", "A1", tp)


def test_a_card_laid_just_after_a_rival_hand_seen_only_over_the_pile_waits_for_its_card_and_is_refused_on_it() -> None:
    _rival_card_laid_on_a_card_laid_unseen(contact_seen=True)


def test_a_card_moved_to_a_space_from_a_place_still_under_an_arm_is_called_before_the_place_is_read() -> None:
    film = _opened()  # L shows 8♦
    film.play("A", "A1", "empty", "L")  # 7♣ onto 8♦: A1 is a space
    arm = HandSeen("A", ("A4",), {})
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A takes 2♠ under an arm that stays on A4
    tm = film.t
    _over(film, 3, HandSeen("A", ("A4", "A1"), {"A1": tm}))  # and lays it in the space
    film.zones["A1"] = "2S"
    film.zones["A4"] = "back"
    _over(film, 30, arm)  # 2♠ read in A1 while A4 is still hidden
    left = film.t
    film.still(10)
    moves = _of(film.judge(), "move_to_space")
    assert [(e["card"], e["from"], e["to"], e.t) for e in moves] == [("2S", "A4", "A1", tm)]
    assert moves[0]["called_at"] < left


def test_a_card_turned_under_an_arm_is_not_refused_at_touches_that_laid_or_took_back_another_card() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows a face-down card
    _over(film, 3, HandSeen("B", ("B2",), {"B2": film.t}))  # B's hand on B2: it turns K♥ there, its arm staying
    arm = HandSeen("B", ("B2",), {})
    _over(film, 2, arm, HandSeen("B", ("B5",), {"B5": film.t}))  # B lifts A♣ with the other hand
    film.zones["B5"] = "back"
    _over(film, 3, arm)
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("L",), {"L": tb}))  # lays it on 8♦: refused
    film.zones["L"] = "AC"
    _over(film, 10, arm)
    _over(film, 3, arm, HandSeen("B", ("L",), {"L": film.t}))  # takes it back
    film.zones["L"] = "8D"
    _over(film, 4, arm)
    film.zones["B5"] = "AC"
    _over(film, 6, arm)
    _over(film, 3, HandSeen("B", ("B2",), {"B2": film.t}))  # its hand on B2 again
    film.zones["B2"] = "KH"  # the arm leaves: K♥ lies turned on B2
    film.still(10)
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "illegal_play")] == [("AC", tb)]
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("B2", "KH")]


def test_a_card_whose_hand_was_only_seen_over_the_pile_waits_for_a_rival_card_touching_it_before_it_showed() -> None:
    film = _opened()  # R shows 3♣
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    arm = HandSeen("A", ("A4",), {})
    _over(film, 3, arm)  # A's arm over A4: A takes 2♠, unseen
    _over(film, 2, arm, HandSeen("B", ("R",), {}))  # B's hand over R, its contact not seen
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}), HandSeen("B", ("R",), {}))  # A's 2♠ touches R first
    film.zones["R"] = "4D"  # B's 4♦ shows on top of it
    _over(film, 8, arm)
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": film.t}))  # B takes it back: the 2♠ shows
    film.zones["R"] = "2S"
    film.zones["B2"] = "4D"
    _over(film, 6, arm)
    film.zones["A4"] = "back"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "2S", ta)]
    assert [(e["player"], e["card"]) for e in _of(events, "illegal_play")] == [("B", "4D")]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("A", "B")]


def test_a_card_turned_unseen_laid_just_after_a_rival_touch_waits_for_the_rival_card_and_is_refused_on_it() -> None:
    film = _opened()  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows a face-down card
    arm = HandSeen("A", ("A5",), {})
    _over(film, 3, arm)  # A's arm over A5: A takes 5♥, unseen
    ta = film.t
    _over(film, 3, HandSeen("A", ("A5", "R"), {"R": ta}), HandSeen("B", ("B2",), {"B2": ta}))  # 5♥ on 4♦; B turns 3♥
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("B2", "R"), {"R": tb}))  # and lays it on the 5♥, never read there
    film.zones["R"] = "3H"
    _over(film, 6, arm)  # B2 (a face-down card) and 3♥ read, A5 still hidden
    film.zones["A5"] = "back"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("A", "5H", ta)
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("B2", "3H")]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "3H", tb)]


def test_a_premature_spit_is_called_once_though_a_re_read_of_the_table_judges_its_card_again() -> None:
    film = _opened()  # moves exist: A's 7♣ and 9♥ fit on 8♦
    tb = film.touch("B", "R", 3, then="JH")  # B spits J♥ too early; it stays there
    film.still(4)
    film.zones["A2"] = "QD"  # then A2 shows what no move explains (read wrongly, say)
    film.still(90)  # re-read two seconds later: J♥, refused just before, taken as lying on 3♣
    film.play("A", "A1", "empty", "L")  # the move the spit came before is made
    events = film.judge()
    assert _of(events, "resync")
    assert [(e["player"], e.t) for e in _of(events, "premature_spit")] == [("B", tb)]


def test_a_stock_place_showing_an_unknown_card_with_no_hand_seen_there_is_read_again_not_taken_as_lifted() -> None:
    film = _opened()
    film.zones["A2"] = "QD"  # A2 shows a card no move explains, no hand having been there (misread, say)
    film.still(75)
    events = film.judge()
    assert [e["stocks"]["A2"] for e in _of(events, "resync")] == [[2, "QD"]]


def test_a_card_touching_a_pile_just_after_a_rival_arm_was_over_it_is_not_played_at_its_touch_but_refused_when_taken_back() -> None:
    film = _opened()  # R shows 3♣
    film.still(10)
    arm = HandSeen("B", ("B2",), {})
    _over(film, 3, HandSeen("B", ("B2", "R"), {}))  # B's arm over B2 and R: B lays 4♦ there, unseen
    _over(film, 2, arm, HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠
    film.zones["A4"] = "back"
    _over(film, 2, arm)
    ta = film.t
    _over(film, 3, arm, HandSeen("A", ("R",), {"R": ta}))  # 2♠ touches R (it would fit on 3♣)
    film.zones["R"] = "2S"
    _over(film, 6, arm)
    _over(film, 3, arm, HandSeen("A", ("R",), {}))  # A's hand takes it back (no contact seen): 4♦ shows
    film.zones["R"] = "4D"
    _over(film, 4, arm)
    film.zones["A4"] = "2S"
    _over(film, 6, arm)
    film.zones["B2"] = "back"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"]) for e in _of(events, "play")] == [("B", "4D")]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_taken_back_by_its_player_s_hand_seen_only_over_the_pile_is_refused_there() -> None:
    _rival_card_laid_on_a_card_laid_unseen(contact_seen=False)


def test_a_rival_stock_card_shown_under_a_card_taken_back_came_first_and_is_played_at_its_touch() -> None:
    film = _opened(spit_l="10S")  # L shows 10♠
    b_arm, a_arm = HandSeen("B", ("B4",), {}), HandSeen("A", ("A2",), {})
    _over(film, 4, b_arm, a_arm)  # B takes J♦ from B4, A 9♥ from A2, neither place read without it
    tb = film.t
    _over(film, 1, HandSeen("B", ("B4", "L"), {"L": tb}), a_arm)  # B lays J♦ on L
    ta = film.t
    _over(film, 3, HandSeen("B", ("B4", "L"), {"L": tb}), HandSeen("A", ("A2", "L"), {"L": ta}))  # A's 9♥ a frame later
    film.zones["L"] = "9H"  # on top: it fits on 10♠, not on J♦
    _over(film, 8, b_arm, a_arm)
    _over(film, 3, b_arm, HandSeen("A", ("A2", "L"), {"L": film.t}))  # A takes the 9♥ back
    film.zones["L"] = "JD"
    _over(film, 2, b_arm, a_arm)
    _over(film, 3, HandSeen("B", ("B4", "L"), {}), a_arm)  # B's arm passes over L, touching nothing
    _over(film, 6, b_arm, a_arm)
    film.zones["B4"] = "back"
    film.still(10)  # 9♥ read back on A2, B4 showing a face-down card
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "JD", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "9H", ta)]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_a_card_turned_under_the_hand_and_covered_by_the_next_card_turned_there_is_played_before_it() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    arm = HandSeen("A", ("A4",), {})
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    first = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": first}))  # and lays it on R, its arm over A4 all along
    film.zones["R"] = "3H"
    _over(film, 6, arm)  # 3♥ read on R, A4 still hidden
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 4♠ there
    second = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": second}))  # and lays it on the 3♥
    film.zones["R"] = "4S"
    _over(film, 6, arm)
    film.still(10)  # the arm leaves: A4 shows the next face-down card
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][1:] == \
        [("A", "3H", "A4", first), ("A", "4S", "A4", second)]
    assert [e["card"] for e in _of(events, "turn_up")] == ["3H", "4S"]


def test_a_card_taken_back_off_a_card_a_rival_turned_unseen_and_laid_just_before_is_refused_on_it() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 and takes it: A4 shows the next face-down card
    ta = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))  # A lays the 3♥ on R, not read
    tb = film.t
    _over(film, 3, HandSeen("B", ("B5", "R"), {"R": tb}))  # B lays A♣ on it (it fits on 2♠, not on 3♥), B5 under its arm
    film.zones["R"] = "AC"
    _over(film, 8, HandSeen("B", ("B5",), {}))
    _over(film, 3, HandSeen("B", ("B5", "R"), {"R": film.t}))  # B takes it back: the 3♥ shows
    film.zones["R"] = "3H"
    _over(film, 6, HandSeen("B", ("B5",), {}))
    film.still(10)  # A♣ back on B5
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1:] == [("A", "3H", "A4", ta)]
    assert [(e["player"], e["card"], e.t, e["reason"]) for e in _of(events, "illegal_play")] == \
        [("B", "AC", tb, "A♣ is not next to 3♥")]


def test_a_card_lifted_unseen_is_not_refused_at_a_touch_when_its_hand_touched_a_spit_pile_again_since() -> None:
    film = _opened(layout=dict(LAYOUT, A3="AH", B3="KS"))  # L shows 8♦, R 3♣
    _over(film, 2, HandSeen("A", ("A3",), {"A3": film.t}))  # A lifts A♥
    film.zones["A3"] = "back"
    film.still(4)
    arm = HandSeen("A", ("A4",), {})
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # and takes 2♠ under an arm that stays on A4
    rival = HandSeen("B", ("R",), {})  # B's hand hides R meanwhile
    t1 = film.t
    _over(film, 3, arm, rival, HandSeen("A", ("R",), {"R": t1}))  # A lays 2♠ on 3♣
    _over(film, 6, arm, rival)
    t2 = film.t
    _over(film, 3, arm, rival, HandSeen("A", ("R",), {"R": t2}))  # and A♥ on it
    _over(film, 4, arm, rival)
    _over(film, 2, arm, HandSeen("B", ("B3",), {"B3": film.t}))  # B lifts K♠
    film.zones["B3"] = "back"
    _over(film, 3, arm)
    t3 = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": t3}))  # and lays it on A♥
    film.zones["R"] = "KS"
    _over(film, 10, arm)
    film.zones["A4"] = "back"
    film.still(15)
    events = film.judge()
    assert not _of(events, "illegal_play")  # A♥ not refused on 3♣ at A's first touch, nor K♠ then on 3♣
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "2S", t1), ("A", "AH", t2), ("B", "KS", t3)]


def test_a_card_taken_back_is_not_refused_at_a_touch_that_laid_another_card_judged_since() -> None:
    rules = SpitRules()
    referee = SpitReferee(rules, state=SpitState.position(rules, {"A": ["7C", "5H"], "B": ["KS", "QC"]},
                                                          spit={"A": "2C", "B": "5C"}, piles={"L": "8D", "R": "3C"}))
    referee._pile_reads["L"] = [("8D", 0.5)]
    referee._touches["L"] = [Touch("L", "A", 1.0, 30, True)]
    referee._apply(Play("A", parse_card("7C"), "A1", "L"), (1.0, 30))  # A's touch on L laid 7♣
    referee._now = (2.0, 60)
    referee._read_clear["L"] = 1.5
    referee._returns = [(parse_card("5H"), Lift("A", "A2", 0.9), "L", (1.0, 30))]  # 5♥, lifted before it, came back
    referee._judge_returns()
    assert [e.type for e in referee._out] == ["play"]  # no refusal of 5♥ at the touch that laid 7♣


def test_of_two_cards_tied_on_a_pile_the_one_read_on_top_taken_off_unseen_came_second() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("A", ("A4",), {})
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A takes 2♠ under an arm that stays on A4
    _over(film, 2, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    _over(film, 4, arm)
    t = film.t
    _over(film, 3, arm, HandSeen("A", ("R",), {"R": t}), HandSeen("B", ("R",), {"R": t}))  # both touch R in one frame
    film.zones["R"] = "4D"  # 4♦ read on top (it fits on 3♣, not on 2♠)
    _over(film, 40, arm)
    film.zones["R"] = "2S"  # 4♦ gone, B's hand not seen taking it: 2♠ shows
    _over(film, 6, arm)
    film.zones["B2"] = "4D"
    _over(film, 6, arm)
    film.zones["A4"] = "back"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "4D", t)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("A", "2S", t)


def test_a_refusal_held_back_while_a_stock_place_was_unexplained_is_judged_once_that_place_is_explained() -> None:
    rules = SpitRules()
    referee = SpitReferee(rules, state=SpitState.position(rules, {"A": ["5H", "back |"], "B": ["QD", "KS"]},
                                                          spit={"A": "2C", "B": "5C"}, piles={"L": "10S", "R": "4D"}))
    referee._pile_reads["L"] = [("10S", 0.5)]
    referee._touches["L"] = [Touch("L", "B", 1.0, 30, True)]
    referee.readings.update({"A1": "5H", "A2": "7D", "B1": "QD", "B2": "KS"})  # 7♦ turned on A2, not judged yet
    referee._seen["A2"] = (0.8, 24)
    referee._now = (2.0, 60)
    referee._returns = [(parse_card("QD"), Lift("B", "B1", 0.9), "L", (1.0, 30))]  # Q♦ touched L and came back
    referee._judge_returns()
    assert not referee._out  # a stock place shows what no move explains: no call yet
    referee._apply(TurnUp("A", "A2", parse_card("7D")), (0.7, 21))  # the turn-up found
    referee._now = (2.1, 63)
    referee._judge_held()
    assert [(e["player"], e["card"], e.t) for e in referee._out if e.type == "illegal_play"] == [("B", "QD", 1.0)]


def test_a_card_read_in_its_place_after_its_player_s_last_touch_on_the_pile_was_not_laid_by_that_touch() -> None:
    film = _opened(layout=dict(LAYOUT, B3="5S"))  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣, its touch seen
    film.still(6)  # 5♠ still read in B3
    _over(film, 3, HandSeen("B", ("B3",), {}))  # B takes it, no contact seen
    film.zones["B3"] = "back"
    film.still(3)
    t = film.t  # and lays it on R, its hand never seen there
    film.zones["R"] = "5S"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "5S", t)


def test_a_card_read_in_its_place_after_its_player_s_last_touch_on_the_pile_was_not_laid_by_it_though_its_place_is_under_the_hand() -> None:
    film = _opened(layout=dict(LAYOUT, B3="5S"))  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣, its touch seen
    film.still(6)  # 5♠ still read in B3
    _over(film, 8, HandSeen("B", ("B3",), {}))  # B takes it, no contact seen, its hand over B3 throughout
    t = film.t  # and lays it on R, its hand never seen there
    film.zones["R"] = "5S"
    _over(film, 6, HandSeen("B", ("B3",), {}))
    film.zones["B3"] = "back"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "5S", t)


def _rival_card_under_a_card_taken_back(film: Film) -> float:
    """B's 4♦ (seen lifted) goes onto R's 3♣ under A's arm, its hand never seen there; A's 2♠ lands
    on it and is taken back, showing the 4♦. The time of A's touch."""
    film.still(60)  # B's hand last touched R at the spit, long before
    _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦ (seen lifted)
    film.zones["B2"] = "back"
    film.still(2)
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠
    film.zones["A4"] = "back"
    ta = film.t  # A lays it on R; B's 4♦ went there just before, its hand hidden under A's arm
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))
    film.zones["R"] = "2S"
    film.still(6)
    film.touch("A", "R", 3, then="4D")  # A takes its 2♠ back: the 4♦ shows
    film.still(6)
    film.zones["A4"] = "2S"
    film.still(20)
    return ta


def test_a_rival_card_seen_lifted_and_shown_under_a_card_taken_back_was_laid_first_by_a_hand_unseen() -> None:
    film = _opened()  # R shows 3♣
    ta = _rival_card_under_a_card_taken_back(film)
    events = film.judge()
    plays = [(e["player"], e["card"], e.t) for e in _of(events, "play")]
    assert plays[-1][:2] == ("B", "4D") and plays[-1][2] < ta
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_race_won_by_a_card_whose_touch_was_never_seen_reports_no_margin() -> None:
    film = _opened()  # R shows 3♣
    _rival_card_under_a_card_taken_back(film)
    races = _of(film.judge(), "race")
    assert [(e["pile"], e["first"], e["second"], e["margin_ms"]) for e in races] == [("R", "B", "A", None)]
    assert "first_t" not in races[0].fields and describe(races[0]) == "race on R: B first, A later"


def test_a_card_is_not_moved_into_a_space_its_hand_touched_less_than_a_fetch_before_it_touched_a_pile() -> None:
    film = _opened(layout=dict(LAYOUT, B1="9D"))  # L shows 8♦, R 3♣
    film.play("B", "B1", "empty", "L")  # 9♦ onto 8♦: B1 is a space
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(3)
    _over(film, 1, HandSeen("B", ("B1",), {"B1": film.t}))  # its hand brushes the space on the way
    t = film.t
    _over(film, 3, HandSeen("B", ("R",), {"R": t}))  # and lays 4♦ on R a frame later
    film.zones["R"] = "4D"
    film.still(20)
    events = film.judge()
    assert not _of(events, "move_to_space")
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("B", "4D", "B2", t)


def test_a_card_is_not_moved_into_a_space_read_empty_just_after_its_hand_touched_it() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")  # 7♣ onto 8♦: A1 is a space
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.still(2)
    film.touch("A", "A1", 2)  # its hand brushes the space on the way
    film.still(9)  # the space read empty: no card lies there
    t = film.touch("A", "R", 3, then="2S")  # and lays 2♠ on 3♣, 0.37 s later
    film.still(10)
    events = film.judge()
    assert not _of(events, "move_to_space")
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("A", "2S", "A4", t)


def test_a_hand_back_on_a_pile_after_it_showed_the_card_its_refused_card_lost_a_tie_to_lays_a_new_card() -> None:
    film = _opened(layout=dict(LAYOUT, A5="3H", B3="3S"))  # R shows 3♣
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.still(2)
    ta, _ = film.touch_both(("A", "R"), ("B", "R"), lag=0)  # in one frame: 4♦ shows on top
    film.zones["R"] = "4D"
    film.still(4)
    film.touch("B", "R", 3, then="2S")  # B takes 4♦ back: refused on 2♠, which came first
    arm = HandSeen("B", ("B2",), {})
    _over(film, 8, arm)  # 4♦ back to B2 under B's arm (not read there); R shows 2♠ again
    _over(film, 3, arm, HandSeen("B", ("B3",), {}))  # B takes 3♠, never seen lifted
    film.zones["B3"] = "back"
    film.touch("A", "A5", 2, then="back")  # A lifts 3♥
    tb = film.t
    _over(film, 2, arm, HandSeen("B", ("R",), {"R": tb}))  # B lays 3♠ on 2♠
    ta2 = film.t
    _over(film, 3, arm, HandSeen("B", ("R",), {"R": tb}), HandSeen("A", ("R",), {"R": ta2}))  # A's 3♥ on it
    film.zones["R"] = "3H"
    _over(film, 8, arm)
    film.touch("A", "R", 3, then="3S")  # A takes 3♥ back: 3♠ came first
    film.zones["A5"] = "3H"
    film.zones["B2"] = "4D"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "2S", ta), ("B", "3S", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "4D", ta), ("A", "3H", ta2)]


def test_a_card_played_and_taken_back_after_a_play_on_the_other_pile_shows_the_rival_card_laid_under_it_first() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.still(60)  # B's hand last touched R at the spit, long before
    film.touch("B", "B2", 2, then="back")  # B lifts 4♦
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.still(3)  # B lays 4♦ on R, its hand hidden under A's arm
    ta = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": ta}))  # A lays 2♠ on it: played on 3♣ as far as the referee knows
    film.zones["R"] = "2S"
    film.still(6)
    tl = film.play("A", "A2", "back", "L")  # A plays 9♥ on 8♦
    film.touch("A", "R", 3, then="4D")  # and takes its 2♠ back off R: the 4♦ shows
    film.still(6)
    film.zones["A4"] = "2S"
    film.still(20)
    events = film.judge()
    plays = [(e["player"], e["card"], e.t) for e in _of(events, "play")]
    assert ("A", "9H", tl) in plays and plays[-1][:2] == ("B", "4D") and plays[-1][2] < ta
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_turned_after_its_player_s_hand_laid_a_card_a_rival_covered_at_once_is_turned_after_that_touch() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    arm = HandSeen("A", ("A4",), {})
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    film.touch("B", "B5", 2, then="back")  # B lifts A♣ (it would fit on 2♠)
    tb = film.t
    for _ in range(3):  # and lays it on the 3♥ before that is read
        film.frame((arm, HandSeen("B", ("R",), {"R": tb})))
    film.zones["R"] = "AC"
    _over(film, 6, arm)
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 9♣ on A4
    film.zones["A4"] = "9C"
    film.still(6)  # the arm leaves: A4 shows 9♣
    film.touch("B", "R", 3, then="3H")  # B takes A♣ back: the 3♥ shows
    film.zones["B5"] = "AC"
    film.still(20)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H"), ("A4", "9C")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("A", "3H", "A4", ta)
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "AC", tb)]


def test_a_card_refused_under_a_rival_card_shown_later_is_not_held_in_its_player_s_hand_if_its_place_never_showed_without_it() -> None:
    film = _opened()  # R shows 3♣
    film.still(60)  # B's hand last touched R at the spit, long before
    _over(film, 2, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦ (seen lifted)
    film.zones["B2"] = "back"
    film.still(2)
    arm = HandSeen("A", ("A4",), {})
    _over(film, 2, HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠ under an arm that hides A4 throughout
    ta = film.t  # A lays it on R; B's 4♦ went there just before, its hand hidden under A's arm
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))
    film.zones["R"] = "2S"
    _over(film, 6, arm)
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": film.t}))  # A takes its 2♠ back: the 4♦ shows
    film.zones["R"] = "4D"
    _over(film, 6, arm)
    film.still(20)  # the arm leaves: A4 shows 2♠, as it did before A lifted it
    judge = Judge("classic", fps=FPS)
    events = [event for obs in film.frames for event in judge.feed(obs)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]
    assert "2S" not in judge.referee._lifted  # type: ignore[union-attr]


def test_a_card_turned_unseen_and_laid_between_touches_on_its_place_is_played_at_a_touch_that_laid_no_card_judged() -> None:
    film = _opened(layout=dict(LAYOUT, A2="AH"))  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    arm = HandSeen("A", ("A4",), {})
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 2♦ on A4 (never read there)
    _over(film, 2, arm, HandSeen("A", ("A2",), {"A2": film.t}))  # its other hand lifts A♥
    film.zones["A2"] = "back"
    _over(film, 3, arm)
    tj = film.t
    _over(film, 3, arm, HandSeen("A", ("R",), {"R": tj}))  # and lays it on 2♠, read there
    film.zones["R"] = "AH"
    _over(film, 8, arm)
    t = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": t}))  # A lays the 2♦ on A♥
    film.zones["R"] = "2D"
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # and turns 9♣ on A4
    film.zones["A4"] = "9C"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-2:] == [("A", "AH", tj), ("A", "2D", t)]


def test_a_rival_card_shown_under_a_card_that_waited_for_it_and_was_taken_back_is_played_at_its_touch() -> None:
    film = _opened()  # R shows 3♣
    b_arm = HandSeen("B", ("B2",), {})
    _over(film, 4, b_arm)  # B takes 4♦ from B2 under its arm, the place never read without it
    tb = film.t
    _over(film, 2, HandSeen("B", ("B2", "R"), {"R": tb}), HandSeen("A", ("A4",), {"A4": tb}))  # B lays 4♦ on R; A lifts 2♠
    film.zones["A4"] = "back"
    ta = film.t
    _over(film, 3, HandSeen("B", ("B2", "R"), {"R": tb}), HandSeen("A", ("A4", "R"), {"R": ta}))  # 2♠ on it
    film.zones["R"] = "2S"  # read on top: it fits on 3♣, not on 4♦
    _over(film, 45, b_arm)  # 1.5 s: 2♠ waits for the card B's hand may have laid under it
    _over(film, 3, b_arm, HandSeen("A", ("R",), {}))  # A takes 2♠ back: 4♦ shows
    film.zones["R"] = "4D"
    _over(film, 6, b_arm)
    film.zones["A4"] = "2S"
    _over(film, 6, b_arm)
    film.zones["B2"] = "back"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_read_on_a_pile_after_its_player_s_touch_then_turned_in_its_place_was_turned_before_it_and_refused() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ on 3♣: A4 face down
    film.play("B", "B5", "back", "R")  # A♣ on 2♠
    arm = HandSeen("A", ("A4",), {})
    _over(film, 6, arm)  # A turns 9♦ on A4 under its hand, unseen
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on A♣
    film.zones["R"] = "9D"
    _over(film, 8, arm)
    _over(film, 3, HandSeen("A", ("A4", "R"), {}))  # takes it back
    film.zones["R"] = "AC"
    _over(film, 6, arm)
    film.zones["A4"] = "9D"
    film.still(10)  # 9♦ read face up on A4 only now
    events = film.judge()
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A", "A4", "9D")]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "9D", ta)]


def _glimpsed_then_covered(glimpse: str, then: str) -> tuple[list, float, float]:
    """A turns a card on A4 under its arm and lays it on R (on 2♠), where it is read for one frame
    only (`glimpse`), then B's hand lays 4♦ from B2 on R, which settles (`then` shows there)."""
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    _over(film, 4, HandSeen("A", ("A4",), {"A4": film.t}))  # A turns 3♥ on A4 (never read there)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R, its arm over A4 all along
    arm = HandSeen("A", ("A4",), {})
    film.frame((arm,), R=glimpse)  # read on R for one frame
    _over(film, 1, arm, HandSeen("B", ("B2",), {"B2": film.t}))  # B lifts 4♦
    film.zones["B2"] = "back"
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("B2", "R"), {"R": tb}))  # and lays it on R: the card never read again
    film.zones["R"] = then
    _over(film, 6, arm)
    film.still(40)  # the arm leaves: A4 shows the next face-down card
    return film.judge(), ta, tb


def test_a_card_read_once_before_a_card_legal_only_on_it_covers_it_is_played_first() -> None:
    events, ta, tb = _glimpsed_then_covered("3H", "4D")
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A4", "3H")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("A", "3H", "A4", ta), ("B", "4D", "B2", tb)]
    assert not _of(events, "illegal_play")


def test_a_card_read_once_is_no_play_when_the_card_covering_it_is_not_legal_on_it() -> None:
    events, _, _ = _glimpsed_then_covered("9H", "4D")  # 4♦ is not next to 9♥: the one read proves nothing
    assert [e["card"] for e in _of(events, "play")] == ["2S"]
    assert not _of(events, "turn_up")


def test_a_stock_top_read_once_before_a_card_legal_only_on_it_covers_it_is_played_first_before_its_place_is_read() -> None:
    film = _opened()  # R shows 3♣
    _over(film, 3, HandSeen("A", ("A4",), {"A4": film.t}))  # A lifts 2♠ under its arm (A4 not read since)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A4", "R"), {"R": ta}))  # and lays it on R
    arm = HandSeen("A", ("A4",), {})
    film.frame((arm,), R="2S")  # read there for one frame
    _over(film, 1, arm, HandSeen("B", ("B5",), {"B5": film.t}))  # B lifts A♣
    film.zones["B5"] = "back"
    tb = film.t
    _over(film, 3, arm, HandSeen("B", ("B5", "R"), {"R": tb}))  # and lays it on the 2♠ (no move on 3♣)
    film.zones["R"] = "AC"
    _over(film, 6, arm)
    left = film.t
    film.zones["A4"] = "back"
    film.still(40)  # the arm leaves: A4 shows a face-down card
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")] == \
        [("A", "2S", "A4", ta), ("B", "AC", "B5", tb)]
    assert all(e["called_at"] < left for e in _of(events, "play"))  # judged once A♣ settles, A4 still hidden
    assert not _of(events, "illegal_play")


def test_a_card_read_on_a_pile_after_a_rival_touch_there_is_not_the_card_turned_before_by_the_player_who_touched_it_earlier() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows a face-down card
    film.play("A", "A5", "back", "R")  # 5♥ onto 4♦: A5 shows a face-down card
    _over(film, 4, HandSeen("A", ("A5",), {"A5": film.t}))  # A turns 6♣ on A5 (never read there)
    ta = film.t
    _over(film, 3, HandSeen("A", ("A5", "R"), {"R": ta}))  # and lays it on R, its arm over A5
    _over(film, 4, HandSeen("A", ("A5",), {}), HandSeen("B", ("B2",), {"B2": film.t}))  # B turns 4♠ on B2
    tb = film.t
    _over(film, 3, HandSeen("A", ("A5",), {}), HandSeen("B", ("B2", "R"), {"R": tb}))  # and lays it on the 6♣
    film.zones["R"] = "4S"
    _over(film, 6, HandSeen("A", ("A5",), {}), HandSeen("B", ("B2",), {}))  # 4♠ read on R, both places hidden
    _over(film, 4, HandSeen("A", ("A5",), {"A5": film.t}), HandSeen("B", ("B2",), {}))  # A turns 10♣ on A5
    film.zones["A5"] = "10C"
    _over(film, 6, HandSeen("B", ("B2",), {}))  # 10♣ read on A5
    _over(film, 3, HandSeen("B", ("B2", "R"), {"R": film.t}))  # B takes 4♠ back: the 6♣ shows
    film.zones["R"] = "6C"
    film.zones["B2"] = "4S"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1:] == [("A", "6C", "A5", ta)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("B", "4S", tb)]


def test_a_card_turned_unseen_that_fits_on_its_player_s_card_waiting_on_the_pile_covers_it_not_taken_back() -> None:
    rules = SpitRules()
    referee = SpitReferee(rules, state=SpitState.position(rules, {"A": ["7C"], "B": ["AC", "back |"]},
                                                          spit={"A": "2C", "B": "5C"}, piles={"L": "8D", "R": "3C"}))
    referee._lifted["AC"] = Lift("B", "B1", 1.0)  # B's A♣, lifted, laid on R and waiting (not judged yet)
    referee.readings["R"] = "AC"
    referee._seen["R"] = (1.5, 45)
    referee._touches["R"] = [Touch("R", "B", 1.4, 42, True), Touch("R", "B", 2.0, 60, True)]
    referee._touches["B2"] = [Touch("B2", "B", 1.2, 36, True)]  # B turns up B2's face-down top under its hand
    referee._lifted_off("R", "KH", 2.1)  # R shows K♥, a card the engine has nowhere: on A♣, not on 3♣
    assert "R" not in referee._took_back and not referee._returns
    referee._lifted_off("R", "2H", 2.1)  # 2♥ would fit on the 3♣ under A♣: A♣ was taken back first
    assert referee._took_back["R"][0] == "B" and [item[0].code for item in referee._returns] == ["AC"]


def test_a_stock_top_read_where_its_player_s_lifted_card_was_judged_at_the_same_touch_is_the_card_that_touch_laid() -> None:
    film = _opened(layout=dict(LAYOUT, B1="9C", B4="7D"))  # L shows 8♦
    film.touch("B", "B1", 2, then="empty")  # B lifts 9♣ (it goes elsewhere unseen)
    film.still(3)
    _over(film, 4, HandSeen("B", ("B4",), {}))  # B's hand takes 7♦, its place under the hand
    t = film.t
    _over(film, 3, HandSeen("B", ("B4", "L"), {"L": t}))  # and lays it on 8♦: 9♣ judged there at the touch
    film.zones["L"] = "7D"  # 7♦ fits on 8♦, not on 9♣
    film.zones["B4"] = "empty"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1] == ("B", "7D", t)
    assert not _of(events, "illegal_play")


def _laid_and_taken_back_under_the_arm(glimpsed: bool) -> list:
    """A's arm stays over A3 (K♦) while A lays the K♦ on R (3♣) and takes it back: the place is never
    read without it; R shows the K♦ for one frame at A's contact, or never."""
    film = _opened()  # R shows 3♣
    film.still(80)  # no touch of A's laid a card there in the last `TAKE_BACK_S`
    arm = HandSeen("A", ("A3",), {})
    _over(film, 4, arm)  # A takes the K♦, its place hidden
    ta = film.t
    _over(film, 2, HandSeen("A", ("A3", "R"), {"R": ta}))  # and lays it on R
    film.frame((arm,), **({"R": "KD"} if glimpsed else {}))  # read there for one frame, or not
    _over(film, 3, HandSeen("A", ("A3", "R"), {}))  # A takes it back
    _over(film, 4, arm)
    film.still(10)  # A3 shows the K♦ again, R the 3♣
    return [(e["player"], e["card"], e["from"], e["to"], e.t == ta) for e in _of(film.judge(), "illegal_play")]


def test_a_card_read_on_a_pile_at_its_players_touch_and_back_in_its_place_never_seen_lifted_is_refused_there() -> None:
    assert _laid_and_taken_back_under_the_arm(glimpsed=True) == [("A", "KD", "A3", "R", True)]


def test_a_hidden_place_read_again_after_a_touch_is_not_refused_without_its_card_read_on_the_pile() -> None:
    assert _laid_and_taken_back_under_the_arm(glimpsed=False) == []


def test_a_card_shown_under_a_card_read_on_the_pile_and_taken_back_was_not_laid_by_the_touch_that_laid_that_card() -> None:
    film = _opened()  # R shows 3♣
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    film.play("B", "B5", "back", "R")  # A♣ onto 2♠: B5 shows a face-down card
    b_arm, a_arm = HandSeen("B", ("B5",), {}), HandSeen("A", ("A4",), {})
    _over(film, 3, HandSeen("B", ("B5",), {"B5": film.t}), HandSeen("A", ("A4",), {"A4": film.t}))  # both turn a card
    _over(film, 6, b_arm, a_arm)  # B 2♥, A 2♦, neither ever read on its place
    tb = film.t
    _over(film, 6, HandSeen("B", ("R",), {"R": tb}), a_arm)  # B lays the 2♥ on R, not read: B5 shows the next face-down card
    ta = film.t
    _over(film, 3, HandSeen("B", ("R",), {}), HandSeen("A", ("R",), {"R": ta}))  # A lays the 2♦ on it: A4 shows one too
    film.zones["R"] = "2D"
    _over(film, 9)  # 2♦ read on R, no hand over it
    for _ in range(4):  # A takes it back unseen, R not read meanwhile: the 2♥ shows
        film.frame((a_arm,), unread=("R",))
    film.zones["R"] = "2H"
    _over(film, 6, a_arm)
    film.zones["A4"] = "2D"  # and lays it back on A4: B5 still shows a face-down card
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1:] == [("B", "2H", "B5", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2D", ta)]
    assert [(e["first"], e["second"]) for e in _of(events, "race")] == [("B", "A")]


def test_a_card_moved_into_a_space_unseen_went_into_the_space_its_hand_touched_last_before_the_pile() -> None:
    film = _opened(layout=dict(LAYOUT, A1="9D", A2="10D"))  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")  # 9♦ onto 8♦: A1 is a space
    film.play("A", "A2", "back", "L")  # 10♦ onto 9♦
    film.touch("A", "A2", 2, then="JS")  # J♠ turned up on A2
    film.play("A", "A2", "empty", "L")  # and onto 10♦: A2 is a space too
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    _over(film, 12, HandSeen("A", ("A1",), {"A1": film.t}))  # its hand rests on A1 a while, laying nothing
    t = film.t
    _over(film, 12, HandSeen("A", ("A2",), {"A2": t}))  # then on A2, laying the 2♠ there unseen
    tr = film.t
    _over(film, 3, HandSeen("A", ("R",), {"R": tr}))  # and lays it on R's 3♣ from there
    film.zones["R"] = "2S"
    film.still(20)
    events = film.judge()
    assert [(e["card"], e["from"], e["to"], e.t) for e in _of(events, "move_to_space")] == [("2S", "A4", "A2", t)]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("A", "2S", "A2", tr)
