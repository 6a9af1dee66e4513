"""The referee's "Spit!" calls on hand-made observation streams: each test is named after the call it makes right."""

from __future__ import annotations

import pytest
from test_judge import Film, _of, _only_a_turn_before_the_spit, _opened, _run

from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen
from referee.rules.spit import SpitRules, SpitState, TurnUp
from referee.tracker import Tracker


def _one_card_to_turn() -> tuple[Film, SpitReferee]:
    """A position whose only move is A turning up the face-down card on A2 (9♣ and K♠ fit neither 4♦ nor 6♦)."""
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back |"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})
    zones = {z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"}
    film = Film(zones)
    film.still(4)
    return film, SpitReferee(rules, state=state)


def test_spit_is_called_on_the_first_read_of_the_card_turned_last() -> None:
    film, referee = _one_card_to_turn()
    t = film.touch("A", "A2", 6, then="QH")  # A turns up Q♥, which fits neither pile: nobody can move
    read = film.frame()  # read once
    film.over("A", "A2", 10)  # and hidden again by A's arm on its way to the spit pile
    film.still(10)
    events = _run(film, referee)
    calls = _of(events, "spit_call")
    assert [(e.t, e["called_at"]) for e in calls] == [(t, read)]
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", t)]


def test_spit_is_called_on_the_first_read_of_the_card_turned_last_where_its_place_was_seen_changing_with_no_hand_found() -> None:
    film, referee = _one_card_to_turn()
    for _ in range(4):  # A2 changes, left unread: the fingers that turn it are not found there
        film.frame(unread=("A2",))
    film.zones["A2"] = "QH"  # Q♥ fits neither pile: nobody can move
    read = film.frame()  # read once
    film.over("A", "A2", 10)  # and hidden again by A's arm
    film.still(10)
    calls = _of(_run(film, referee), "spit_call")
    assert [e["called_at"] for e in calls] == [read]


def test_spit_is_not_called_once_a_spit_card_laid_by_a_hand_never_seen_is_read_on_its_pile() -> None:
    rules = SpitRules()  # A's face-down A2 is the one move left; the spit cards face down, unknown
    state = SpitState.position(rules, {"A": ["9C", "back |"], "B": ["KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    referee = SpitReferee(rules, state=state)
    film.touch("A", "A2", 6, then="QH")  # A turns up Q♥, which fits neither pile: nobody can move
    film.over("A", "A2", 4)  # A's arm stays over it
    for _ in range(2):  # B's spit card lands on R, B's hand never seen: R changed, not read yet
        film.frame((HandSeen("A", ("A2",)),), unread=("R",))
    film.zones["R"] = "JH"
    film.over("A", "A2", 1)  # J♥ read on R (not settled yet) while A2 is still hidden
    film.still(10)  # A2 read only now: a "Spit!" would come after theirs
    events = _run(film, referee)
    assert [e["card"] for e in _of(events, "turn_up")] == ["QH"]
    assert not _of(events, "spit_call")


def test_spit_is_not_called_on_a_face_down_card_misread_for_a_frame() -> None:
    film, referee = _one_card_to_turn()
    film.frame(A2="QH")  # no hand came near A2: a misread of the card lying face down
    film.still(10)
    events = _run(film, referee)
    assert not _of(events, "spit_call") and not _of(events, "turn_up")


def test_spit_is_not_called_on_the_first_read_of_a_turned_card_that_fits() -> None:
    film, referee = _one_card_to_turn()
    film.touch("A", "A2", 6, then="5H")  # 5♥ fits both piles
    film.frame()
    film.over("A", "A2", 10)
    film.still(10)
    events = _run(film, referee)
    assert not _of(events, "spit_call")
    assert [e["card"] for e in _of(events, "turn_up")] == ["5H"]


def _stalemate_while_a_card_waits() -> tuple[Film, SpitReferee]:
    """A's 3♥ onto 4♦ leaves nobody a move, both players holding spit cards, while a card no move
    explains (J♣ in B's empty place) keeps the table unexplained: a "Spit!" call waits."""
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "9C", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    film.touch("B", "B2", 3, then="JC")
    film.touch("A", "A1", 2, then="empty")
    film.still(4)
    film.touch("A", "L", 3, then="3H")
    return film, SpitReferee(rules, state=state)


def test_spit_is_not_called_once_the_players_have_spat() -> None:
    film, referee = _stalemate_while_a_card_waits()
    film.still(10)
    a = film.touch("A", "L", 3, then="2C")  # and the players spit
    film.still(4)
    b = film.touch("B", "R", 3, then="5C")
    film.still(10)
    events = _run(film, referee)
    assert [(e["cards"], e["contact"]) for e in _of(events, "spit")] == [({"L": "2C", "R": "5C"}, {"A": a, "B": b})]
    assert not _of(events, "spit_call")  # a "Spit!" after theirs would come while they already play on


def test_spit_is_called_after_a_hand_touched_a_spit_pile_and_laid_nothing_there() -> None:
    film, referee = _stalemate_while_a_card_waits()
    film.still(6)
    film.touch("B", "R", 3)  # B's hand touches 6♦ and leaves it showing: no spit card laid
    film.still(6)
    film.touch("B", "B2", 3, then="empty")  # B takes J♣ away: the table is explained
    film.still(10)
    events = _run(film, referee)
    assert len(_of(events, "spit_call")) == 1
    assert not _of(events, "spit") and not _of(events, "premature_spit")


def test_spit_is_not_called_once_a_player_s_hand_is_laying_a_spit_card() -> None:
    film, referee = _stalemate_while_a_card_waits()
    film.still(6)
    first = film.t
    for _ in range(8):  # A's hand lays a spit card on L while B takes J♣ away: the table is explained
        film.frame((HandSeen("A", ("L",), {"L": first}), HandSeen("B", ("B2",), {"B2": first})))
    film.zones.update(L="10C", B2="empty")  # 9♣ fits on 10♣
    film.still(6)
    film.touch("B", "R", 3, then="5C")
    film.still(10)
    events = _run(film, referee)
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "10C", "R": "5C"}]
    assert not _of(events, "spit_call")


def test_deal_end_is_not_called_while_the_ender_s_place_shows_a_card_the_engine_lost() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["", "", "", "", "9C"], "B": ["KS", "2D"]},
                               spit={"A": "back back", "B": "back back"}, piles={"L": "10H", "R": "4D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A2": "8H", "A5": "9C", "B1": "KS", "B2": "2D",
                                                          "L": "10H", "R": "4D"})  # A's 8♥, which the engine lost
    film.still(4)
    film.touch("A", "A5", 2, then="empty")
    film.still(4)
    film.touch("A", "L", 3, then="9C")  # 9♣ onto 10♥: the engine's last card of A's stock
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert not _of(events, "deal_end")
    assert [e["stocks"]["A2"] for e in _of(events, "resync")] == [[1, "8H"]]
    assert [(e["card"], e["to"]) for e in _of(events, "play")] == [("9C", "L")]


def test_a_card_doubted_as_a_spit_card_then_judged_played_leaves_its_player_s_next_touch_there_laying_a_card() -> None:
    film = _opened()  # L shows 8♦
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(4)
    doubted = len(film.frames)
    laid = film.touch("A", "L", 3, then="9H")
    film.still(6)
    film.touch("A", "A2", 3, then="10C")  # A turns up 10♣
    film.still(4)
    film.touch("A", "A2", 2, then="empty")  # and lifts it
    film.touch("B", "B4", 2, then="back")  # B lifts J♦
    film.still(4)
    t10 = film.touch("A", "L", 3)  # 10♣ onto the 9♥, covered at once by the J♦: never read
    tj = film.touch("B", "L", 3, then="JD")
    film.still(8)
    referee = SpitReferee(SpitRules())
    tracker = Tracker()
    events = []
    for i, obs in enumerate(film.frames):
        if i == doubted:  # what the referee keeps of a card it doubted as a spit card laid while a move existed
            referee._flagged["L", "9H"] = ("A", laid)
            referee._unsure.add(("L", "9H"))
        events.extend(referee.update(tracker.update(obs)))
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", laid), ("10C", t10), ("JD", tj)]
    assert not _of(events, "illegal_play")


def test_spit_is_not_called_on_a_card_judged_turned_unseen_and_refused_before_its_place_is_read() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "back |"], "B": ["KS"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    film.play("A", "A1", "empty", "L")  # 3♥ onto 4♦: A's face-down A2 is the one move left
    film.touch("A", "A2", 4)  # A turns up Q♥, which fits neither pile: nobody can move
    film.zones["A2"] = "QH"
    film.over("A", "A2", 12)  # A's arm stays over it
    t = film.t
    for _ in range(3):  # while its hand lays a spit card, 9♠, on 3♥: taken for the card turned, refused
        film.frame((HandSeen("A", ("A2", "L"), {"L": t}),))
    film.zones["L"] = "9S"
    film.over("A", "A2", 6)
    film.still(10)  # A2 shows Q♥: 9♠ was a spit card, and a "Spit!" now would come after theirs
    assert not _of(_run(film, SpitReferee(rules, state=state)), "spit_call")


def test_spit_is_not_called_once_a_spit_card_was_laid_after_the_arm_over_the_card_turned_last_left() -> None:
    film, referee = _one_card_to_turn()
    film.over("A", "A2", 50)  # A's arm over A2 all along, never seen at rest: it turns up Q♥ under it
    film.zones["A2"] = "QH"  # which fits neither pile: nobody can move
    for _ in range(3):
        film.frame(unread=("A2",))  # the arm gone, A2 changed and not read yet
    t = film.t
    for _ in range(3):  # B lays its spit card
        film.frame((HandSeen("B", ("R",), {"R": t}),), unread=("A2",))
    film.zones["R"] = "5C"
    film.still(10)  # A2 read only now: a "Spit!" would come after theirs
    events = _run(film, referee)
    assert [e["card"] for e in _of(events, "turn_up")] == ["QH"]
    assert not _of(events, "spit_call")


def test_a_card_read_in_a_stock_place_this_deal_laid_on_a_spit_pile_is_no_premature_spit_card_nor_one_turned_unseen() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")  # 7♣ onto 8♦: A1 is a space
    film.touch("A", "A1", 3, then="6H")  # 6♥ shows in A1, from where no move the engine knows
    film.still(10)
    arm = HandSeen("A", ("A1",), {})
    for _ in range(3):
        film.frame((HandSeen("A", ("A1",), {"A1": film.t}),))  # A takes it, its arm staying over A1
    t = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("L",), {"L": t})))  # and lays it on 7♣
    film.zones["L"] = "6H"
    film.zones["A1"] = "empty"
    for _ in range(20):
        film.frame((arm,))
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: the move the engine would have named was made
    film.still(90)
    events = film.judge()
    assert not _of(events, "premature_spit")  # a stock card it lost track of, not a spit card laid early
    assert not _of(events, "turn_up")  # nor one turned up unseen on A4 (it lay face up in A1)


def test_a_card_laid_that_would_be_refused_as_the_card_turned_unseen_into_a_stalemate_waits_for_its_place() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back |"], "B": ["KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "4D", "R": "6D"})  # A turning up A2 is the only move
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    for _ in range(4):
        film.frame((HandSeen("A", ("A2",), {"A2": film.t}),))  # A turns Q♥ on A2, its arm staying: nobody can move
    a = film.t
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": a}),))  # and spits 2♣ on 4♦ (refused there, were it the card turned)
    film.zones["L"] = "2C"
    arm = HandSeen("A", ("A2",), {})
    for _ in range(10):
        film.frame((arm,))
    b = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("B", ("R",), {"R": b})))  # B spits 5♣
    film.zones["R"] = "5C"
    for _ in range(10):
        film.frame((arm,))
    film.zones["A2"] = "QH"  # the arm leaves: Q♥ lies turned on A2
    film.still(20)
    events = _run(film, SpitReferee(rules, state=state))
    assert not _of(events, "illegal_play")
    assert [e["card"] for e in _of(events, "turn_up")] == ["QH"]
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "2C", "R": "5C"}]


def test_spit_is_called_while_the_place_the_last_card_was_played_from_is_still_under_its_player_s_arm() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "9C", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    arm = HandSeen("A", ("A1",))
    for _ in range(3):  # A takes 3♥ from A1, its arm staying over A1 (never read empty)
        film.frame((HandSeen("A", ("A1",), {"A1": film.t}),))
    t = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("L",), {"L": t})))  # and lays it on 4♦: nobody can move
    film.zones["L"] = "3H"
    film.zones["A1"] = "empty"
    for _ in range(20):
        film.frame((arm,))  # A1 still shows 3♥ as last read
    film.still(6)
    events = _run(film, SpitReferee(rules, state=state))
    calls = _of(events, "spit_call")
    assert [(e.t, e["called_at"] < t + 0.5) for e in calls] == [(t, True)]


def test_spit_is_not_called_once_spit_cards_were_laid_while_the_turn_up_s_place_was_hidden_since_read_face_down() -> None:
    film, referee = _only_a_turn_before_the_spit()
    for _ in range(4):  # A's hand comes over A2 and turns Q♣ (which fits nowhere), no contact seen
        film.frame((HandSeen("A", ("A2",)),))
    film.zones["A2"] = "QC"
    tb = film.t
    for _ in range(4):  # B's spit card on R
        film.frame((HandSeen("B", ("R",), {"R": tb}), HandSeen("A", ("A2",))))
    film.zones["R"] = "8H"
    ta = film.t
    for _ in range(4):  # A's arm, still over A2, lays A's spit card on L
        film.frame((HandSeen("A", ("A2", "L"), {"L": ta}),))
    film.zones["L"] = "5S"
    tc = film.t
    for _ in range(4):  # A's hand touches A2 only now: the turn is dated here
        film.frame((HandSeen("A", ("A2",), {"A2": tc}),))
    film.still(10)
    events = _run(film, referee)
    assert [(e["player"], e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A", "A2", "QC")]
    assert not _of(events, "spit_call")  # the players spat before the turn's touch: A2 may have been turned as A's hand came


def test_a_card_laid_while_its_player_s_only_face_down_place_is_not_read_yet_waits_for_it_and_is_a_spit_card() -> None:
    film, referee = _only_a_turn_before_the_spit()
    film.over("A", "A2", 3)  # A turns Q♣ on A2 (no move left), no contact seen
    film.zones["A2"] = "QC"
    ta = film.t
    for _ in range(3):  # A lays a spit card, 5♠ (which would play on 4♦ if turned on A2)
        film.frame((HandSeen("A", ("L",), {"L": ta}),), unread=("A2",))
    film.zones["L"] = "5S"
    for _ in range(5):  # read on L while A2 is not read yet
        film.frame(unread=("A2",))
    film.still(4)
    film.touch("B", "R", 3, then="8H")  # B's spit card
    film.still(8)
    events = _run(film, referee)
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A2", "QC")]
    assert not _of(events, "play") and not _of(events, "premature_spit")
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "5S", "R": "8H"}]


def test_a_card_waiting_for_its_player_s_only_face_down_place_is_judged_turned_there_once_a_hand_hides_it_again() -> None:
    film, referee = _only_a_turn_before_the_spit("back back |")
    film.over("A", "A2", 3)  # A turns 5♠ on A2, no contact seen
    ta = film.t
    for _ in range(3):  # and lays it on 4♦
        film.frame((HandSeen("A", ("L",), {"L": ta}),), unread=("A2",))
    film.zones["L"] = "5S"
    for _ in range(5):  # read on L while A2 is not read yet: the card waits
        film.frame(unread=("A2",))
    back = film.t
    film.over("A", "A2", 6)  # A's hand over A2 again before it was read: the wait is over
    film.still(8)
    events = _run(film, referee)
    plays = _of(events, "play")
    assert [(e["card"], e["from"], e.t) for e in plays] == [("5S", "A2", ta)] and plays[0]["called_at"] == back


def test_a_card_laid_while_the_only_face_down_place_its_hand_turned_is_hidden_waits_for_that_place() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back |"], "B": ["KS"]}, spit={"A": "back", "B": "back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(6)
    tt = film.t
    for _ in range(3):  # A turns Q♥ on A2, its only face-down place, under its hand: nobody can move
        film.frame((HandSeen("A", ("A2",), {"A2": tt}),))
    film.zones["A2"] = "QH"
    for _ in range(6):
        film.frame((HandSeen("A", ("A2",)),))
    t = film.t
    for _ in range(3):  # the hand, still over A2, lays A's spit card 5♠ on L (it would fit there, turned on A2)
        film.frame((HandSeen("A", ("A2", "L"), {"L": t}),))
    film.zones["L"] = "5S"
    for _ in range(2):  # 5♠ read while A2 is still hidden; A2 read two frames later
        film.frame((HandSeen("A", ("A2",)),))
    film.still(20)
    tb = film.touch("B", "R", 3, then="7C")  # B's spit card
    film.still(20)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A2", "QH", tt)]
    assert [(e["cards"], e.t) for e in _of(events, "spit")] == [({"L": "5S", "R": "7C"}, tb)]
    assert not _of(events, "play") and not _of(events, "premature_spit") and not _of(events, "illegal_play")


def test_a_spit_card_laid_while_the_engine_had_the_other_pile_wrong_is_no_premature_spit_for_a_play_made_there_since() -> None:
    rules = SpitRules()  # B's 6♦ onto the engine's 7♥ on L is the one move the engine finds
    state = SpitState.position(rules, {"A": ["9C"], "B": ["KS", "6D"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "7H", "R": "4D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "B1": "KS", "B2": "6D", "L": "7H", "R": "4D"})
    film.still(4)
    lost = len(film.frames)
    film.touch("B", "R", 3, then="QC")  # B's spit card, while L last showed 10♦: the engine lost that pile
    film.still(6)
    film.touch("B", "B2", 2, then="empty")
    film.touch("B", "L", 3, then="6D")  # 6♦ onto L since: maybe onto a card laid there since, no proof of a move then
    film.still(10)
    referee = SpitReferee(rules, state=state)
    tracker = Tracker()
    events = []
    for i, obs in enumerate(film.frames):
        if i == lost:  # what the referee keeps of a pile last read showing a card the engine never had there
            referee._pile_reads["L"] = [("10D", film.frames[i - 1].t)]
        events.extend(referee.update(tracker.update(obs)))
    assert [e["card"] for e in _of(events, "play")] == ["6D"] and not _of(events, "premature_spit")



def test_a_spit_laying_a_card_on_each_pile_is_both_players_though_one_hand_was_never_seen() -> None:
    rules = SpitRules()  # nobody can move: K♠, 9♣, K♥, K♣, 2♥ and 2♠ fit neither 4♦ nor 6♦
    state = SpitState.position(rules, {"A": ["KS"], "B": ["back | 9C", "KH", "KC", "2H", "2S"]},
                               spit={"A": "back back", "B": "back back"}, piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names}
                | {"A1": "KS", "B1": "9C", "B2": "KH", "B3": "KC", "B4": "2H", "B5": "2S", "L": "4D", "R": "6D"})
    film.still(4)
    referee = SpitReferee(rules, state=state)
    film.touch("B", "L", 3, then="8C")  # A's spit card lands under B's hand, A's never seen: taken for B's
    film.still(2)
    film.touch("B", "R", 3, then="JH")  # the spit, judged with B's contact only
    film.still(4)
    film.play("B", "B1", "back", "L")  # 9♣ onto 8♣
    film.touch("B", "B1", 3, then="KD")  # B turns up K♦: nobody can move, less than 2 s after the spit
    a = film.t
    for _ in range(3):  # A lays a spit card while B's arm still hides K♦
        film.frame((HandSeen("B", ("B1",)), HandSeen("A", ("L",), {"L": a})))
    film.zones["L"] = "3S"
    for _ in range(4):  # 3♠ read on L before K♦ is read
        film.frame(unread=("B1",))
    film.still(3)
    b = film.touch("B", "R", 3, then="4S")
    film.still(10)
    events = _run(film, referee)
    spits = _of(events, "spit")
    assert [e["cards"] for e in spits] == [{"L": "8C", "R": "JH"}, {"L": "3S", "R": "4S"}]
    assert spits[1]["contact"]["A"] == a and spits[1]["contact"]["B"] == b
    assert not _of(events, "premature_spit")

def test_spit_is_not_called_once_the_player_whose_play_made_the_stalemate_laid_a_spit_card_before_its_contact_was_seen() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["3H", "9C"], "B": ["KS"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "3H", "A2": "9C", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    film.touch("A", "A1", 2, then="empty")  # A lifts 3♥
    film.still(3)
    film.over("A", "L", 3)  # and lays it on 4♦, its contact not seen: nobody can move
    film.zones["L"] = "3H"
    for _ in range(2):  # A's hand goes on to R with a spit card
        film.frame((HandSeen("A", ("R",)),), unread=("L",))
    film.zones["R"] = "2C"
    film.frame(unread=("L",))
    t = film.t
    for _ in range(2):  # A's contact with L seen only now, on the hand's way back: the play is dated here
        film.frame((HandSeen("A", ("L",), {"L": t}),))
    film.still(10)
    film.touch("B", "L", 3, then="10C")  # B's spit card: 9♣ fits on it
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("A", "3H", t)]
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "10C", "R": "2C"}]
    assert not _of(events, "spit_call")  # a "Spit!" after A's spit card would come after the players'


def test_a_card_read_in_a_stock_place_since_its_player_s_turn_up_there_was_due_is_no_premature_spit_card() -> None:
    rules = SpitRules()
    referee = SpitReferee(rules, state=SpitState.position(rules, {"A": ["", "back |"], "B": ["KS"]},
                                                          spit={"A": "back back", "B": "back back"},
                                                          piles={"L": "10C", "R": "5C"}))
    due = TurnUp("A", "A2")  # A's only move: turning up A2 (last moved at 1.0)
    referee._moved["A2"] = 1.0
    referee._read_in_place["QH"] = (1.5, "A2")  # read on A2 once since, then under A's arm
    assert referee._read_turned(due, "QH")  # Q♥ laid on a spit pile is the card turned there
    assert not referee._read_turned(due, "JD")  # a card never read in a stock place may be a spit card
    referee._read_in_place["JD"] = (0.5, "A2")
    assert not referee._read_turned(due, "JD")  # nor one read there before the last move there
    referee._read_in_place["3C"] = (1.5, "B1")
    assert not referee._read_turned(due, "3C")  # nor one read in another place (a card carried over it)


def _a_card_to_turn_and_spit_cards_unknown() -> tuple[Film, SpitReferee]:
    """A position whose only move is A turning up the face-down top of A2 (two cards there, no space;
    no face-up card fits 4♦ or 6♦ nor, but K♥ on a queen, a spit card laid below); spit cards unknown."""
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back back |", "JS", "JC", "10H"], "B": ["KS", "KH", "JH", "10S", "9S"]},
                               spit={"A": "back back", "B": "back back"}, piles={"L": "4D", "R": "6D"})
    film = Film({"A1": "9C", "A2": "back", "A3": "JS", "A4": "JC", "A5": "10H",
                 "B1": "KS", "B2": "KH", "B3": "JH", "B4": "10S", "B5": "9S", "L": "4D", "R": "6D"})
    film.still(4)
    return film, SpitReferee(rules, state=state)


def _spat_then_played_on(film: Film, hidden: tuple[HandSeen, ...] = (), unread: tuple[str, ...] = ()) -> tuple[float, float]:
    """B lays Q♦ on R, A lays 8♥ on L (A's hand over A2 too when `hidden` holds A's hand), then B plays
    K♥ from B2 onto Q♦, all while A2 is hidden (`hidden`) or not read (`unread`); the spit cards' touches."""
    held = tuple(h for h in hidden if h.side == "A")
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("R",), {"R": tb}), *held), unread=unread)
    film.zones["R"] = "QD"
    ta = film.t
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L") if held else ("L",), {"L": ta}),), unread=unread)
    film.zones["L"] = "8H"
    for _ in range(3):
        film.frame(held, unread=unread)
    tp = film.t
    for _ in range(2):
        film.frame((HandSeen("B", ("B2",), {"B2": tp}), *held), unread=unread)
    film.zones["B2"] = "empty"
    tq = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("R",), {"R": tq}), *held), unread=unread)
    film.zones["R"] = "KH"
    return ta, tb


def test_spit_cards_laid_after_a_turn_not_read_yet_make_the_spit_once_the_turn_is_judged() -> None:
    film, referee = _a_card_to_turn_and_spit_cards_unknown()
    turned = film.touch("A", "A2", 6, then="QH")  # A turns Q♥ (nobody can move), A2 not read until the spit is covered
    ta, tb = _spat_then_played_on(film, unread=("A2",))
    for _ in range(3):
        film.frame(unread=("A2",))
    film.still(20)  # A2 read only now: Q♥
    events = _run(film, referee)
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", turned)]
    assert [(e["cards"], e["contact"]) for e in _of(events, "spit")] == [({"L": "8H", "R": "QD"}, {"A": ta, "B": tb})]
    assert [(e["card"], e["to"]) for e in _of(events, "play")] == [("KH", "R")]
    assert not _of(events, "premature_spit")


def test_spit_cards_laid_after_a_spit_called_on_a_first_read_make_that_turn_and_the_spit() -> None:
    film, referee = _a_card_to_turn_and_spit_cards_unknown()
    turned = film.touch("A", "A2", 6, then="QH")  # A turns Q♥: nobody can move
    read = film.frame()  # read once ("Spit!" called on it), then hidden by A's arm until after the spit is covered
    film.over("A", "A2", 2)
    ta, tb = _spat_then_played_on(film, hidden=(HandSeen("A", ("A2",)),))
    film.over("A", "A2", 40)
    film.still(10)
    events = _run(film, referee)
    assert [e["called_at"] for e in _of(events, "spit_call")] == [read]
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", turned)]
    assert [e["cards"] for e in _of(events, "spit")] == [{"L": "8H", "R": "QD"}]
    assert [(e["card"], e["to"]) for e in _of(events, "play")] == [("KH", "R")]
    assert not _of(events, "premature_spit") and not _of(events, "resync")


@pytest.mark.parametrize("taken_back_first", [False, True])
def test_a_doubted_spit_card_is_premature_once_a_move_its_position_allowed_is_made_after_it(taken_back_first: bool) -> None:
    rules = SpitRules()  # A may move 5♥ or 6♥ into the space A1, each uncovering a face-down card
    state = SpitState.position(rules, {"A": ["", "back | 5H", "back | 6H"], "B": ["KS"]},
                               spit={"A": "back back", "B": "back back"}, piles={"L": "9D", "R": "2C"})
    film = Film({z: "empty" for z in rules.place_names} | {"A2": "5H", "A3": "6H", "B1": "KS", "L": "9D", "R": "2C"})
    film.still(4)
    tb = film.t
    for _ in range(4):  # B lays a spit card while A's arm hides A2 and A3, lifting 6♥ (no contact seen)
        film.frame((HandSeen("A", ("A2", "A3")), HandSeen("B", ("R",), {"R": tb})))
    film.zones.update(A3="back", R="JC")
    if taken_back_first:  # B takes the spit card back while A's hand, holding 6♥, is still over the stock
        film.over("A", "A2", 10)
        film.touch("B", "R", 3, then="2C")
    film.over("A", "A1", 2)
    ta = film.touch("A", "A1", 3, then="6H")  # 6♥ into the space, after the spit card landed
    film.still(10)
    if not taken_back_first:
        film.touch("B", "R", 3, then="2C")
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e["from"], e["to"], e.t) for e in _of(events, "move_to_space")] == [("6H", "A3", "A1", ta)]
    early = _of(events, "premature_spit")
    assert [(e["player"], e.t) for e in early] == [("B", tb)]
    assert early[0]["move"] == ("A moves 6♥ from A3 into the empty space A1" if taken_back_first
                                else "A moves 5♥ from A2 into the empty space A1")  # (the move made, or the engine's)
    assert not _of(events, "spit")


def test_a_card_laid_on_a_pile_is_not_another_player_s_whose_last_touch_there_laid_a_card_judged_already() -> None:
    rules = SpitRules()  # after B's J♥ onto Q♦, B's 10♣ onto J♥ is a move
    state = SpitState.position(rules, {"A": ["KS"], "B": ["back | JH", "10C"]}, spit={"A": "back back", "B": "back back"},
                               piles={"L": "QD", "R": "2H"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "KS", "B1": "JH", "B2": "10C", "L": "QD", "R": "2H"})
    film.still(4)
    tb = film.play("B", "B1", "back", "L")  # B's J♥ onto Q♦
    b_on_b1 = HandSeen("B", ("B1",))  # B's hand back over B1, turning its card, for a long while
    film.frame((b_on_b1,))
    ta = film.t
    for _ in range(3):  # A lays a spit card on J♥
        film.frame((b_on_b1, HandSeen("A", ("L",), {"L": ta})))
    film.zones["L"] = "3C"
    for _ in range(10):
        film.frame((b_on_b1,))
    tc = film.t
    for _ in range(3):  # A takes it back before B1 is read
        film.frame((b_on_b1, HandSeen("A", ("L",), {"L": tc})))
    film.zones["L"] = "JH"
    for _ in range(6):
        film.frame((b_on_b1,))
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "JH", tb)]
    assert [(e["player"], e["move"], e.t) for e in _of(events, "premature_spit")] == [("A", "B plays 10♣ from B2 onto L", ta)]
