"""The referee's waits for a rival's card on hand-made observation streams: each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import FPS, LAYOUT, Film, _of, _opened, _run, _seven_laid_on_an_unseen_nine_and_taken_back

from referee.judge.spit.config import TIE_WAIT_S, TURN_S
from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen
from referee.rules.spit import SpitRules, SpitState


def test_a_card_waiting_for_a_card_a_hand_over_the_pile_may_have_laid_is_judged_once_its_place_is_read_unchanged() -> None:
    film = _opened()  # L shows 8♦
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(2)
    for _ in range(3):  # B's hand over L, no contact seen, its arm over B3 (whose 8♠ it may hold)
        film.frame((HandSeen("B", ("B3", "L"), {}),))
    ta = film.t
    for _ in range(3):  # A lays 9♥ on L
        film.frame((HandSeen("A", ("L",), {"L": ta}), HandSeen("B", ("B3",), {})))
    film.zones["L"] = "9H"
    for _ in range(6):  # 9♥ read on L while B's arm still hides B3
        film.frame((HandSeen("B", ("B3",), {}),))
    cleared = film.t
    film.still(40)  # B3 read showing 8♠ as before: no change, yet the wait is over
    events = film.judge()
    plays = _of(events, "play")
    assert [(e["card"], e.t) for e in plays] == [("9H", ta)]
    assert plays[0]["called_at"] <= cleared + 2 / FPS < ta + TIE_WAIT_S


def test_a_hand_over_a_pile_with_its_place_hidden_that_lays_its_card_on_the_other_pile_makes_no_card_wait() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(2)
    for _ in range(2):  # B's hand passes over L, its arm hiding B2 (whose 4♦ it takes unseen)
        film.frame((HandSeen("B", ("B2", "L"), {}),))
    tb = film.t
    b_on_r = HandSeen("B", ("B2", "R"), {"R": tb})
    film.frame((b_on_r,))  # and lays the 4♦ on R, where it stays a while
    ta = film.t
    for _ in range(3):  # A lays 9♥ on L
        film.frame((HandSeen("A", ("L",), {"L": ta}), b_on_r))
    film.zones["L"] = "9H"
    read = film.t
    for _ in range(40):  # B's hand stays on R, its arm over B2
        film.frame((b_on_r,))
    film.zones.update(R="4D", B2="back")
    film.still(10)
    plays = _of(film.judge(), "play")
    assert sorted((e["card"], e.t) for e in plays) == [("4D", tb), ("9H", ta)]
    nine = next(e for e in plays if e["card"] == "9H")
    assert nine["called_at"] <= read + 3 / FPS  # judged once read, not after waiting for a card of B's


def test_a_race_loser_taken_back_off_the_pile_is_refused_once_the_pile_shows_the_card_under_it() -> None:
    film, ta, tb = _seven_laid_on_an_unseen_nine_and_taken_back()  # the 7♠ was refused
    shown = film.t
    for _ in range(20):  # and holds it over B1 a while
        film.frame((HandSeen("B", ("B1",), {}),))
    film.zones["B1"] = "7S"
    film.still(6)
    events = film.judge()
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("9H", ta)]
    illegal = _of(events, "illegal_play")
    assert [(e["player"], e["card"], e.t) for e in illegal] == [("B", "7S", tb)]
    assert illegal[0]["called_at"] < shown + 3 / FPS  # read there (two frames), not kept until seen back on B1


def test_a_card_turned_on_its_player_s_only_face_down_top_is_judged_without_waiting_for_that_place_to_be_read() -> None:
    film = _opened()  # L shows 8♦
    film.play("A", "A2", "back", "L")  # 9♥ onto it; A2 shows its last card, face down: A's only one
    turned = film.touch("A", "A2", 3)  # A turns it (10♣), never read face up
    for _ in range(2):
        film.frame((HandSeen("A", ("A2",), {}),))
    laid = film.t
    for _ in range(3):  # and lays it on the 9♥, the arm still over A2
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones["L"] = "10C"
    film.zones["A2"] = "empty"
    for _ in range(12):  # the arm stays over A2 while 10♣ is read on L
        film.frame((HandSeen("A", ("A2",), {}),))
    cleared = film.t
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A2", "10C", turned)]
    plays = _of(events, "play")
    assert [(e["card"], e.t) for e in plays] == [("9H", plays[0].t), ("10C", laid)]
    assert plays[1]["called_at"] < cleared  # not held until A2 is read


def test_a_rival_contact_on_the_pile_whose_card_is_seen_landing_on_the_other_pile_makes_no_card_wait() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.still(2)
    tb = film.t
    for _ in range(3):  # B's hand, over both piles, its arm hiding B2 (whose 4♦ it takes unseen), is seen touching L
        film.frame((HandSeen("B", ("B2", "L", "R"), {"L": tb}),))
    for _ in range(3):  # while the 4♦ lands on R
        film.frame((HandSeen("B", ("B2", "R"), {}),))
    film.zones["R"] = "4D"
    film.frame((HandSeen("B", ("B2",), {}),))
    ta = film.t
    for _ in range(3):  # A lays 9♥ on L less than the race window after B's contact there
        film.frame((HandSeen("A", ("L",), {"L": ta}), HandSeen("B", ("B2",), {})))
    film.zones["L"] = "9H"
    read = film.t
    for _ in range(40):  # B's arm still hides B2
        film.frame((HandSeen("B", ("B2",), {}),))
    film.zones["B2"] = "back"
    film.still(10)
    plays = _of(film.judge(), "play")
    nine = [e for e in plays if e["card"] == "9H"]
    assert [e.t for e in nine] == [ta]
    assert nine[0]["called_at"] <= read + 3 / FPS  # judged once read, not after waiting for a card of B's under it


def test_a_hand_s_contact_with_the_other_pile_just_after_it_laid_a_card_lays_no_card() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A1", "empty", "L")  # 7♣ onto 8♦: A1 is a space
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    film.still(2)
    ta = film.t
    for _ in range(3):  # A lays 2♠ on R, its arm over A3 (K♦)
        film.frame((HandSeen("A", ("A3", "R"), {"R": ta}),))
    tl = film.t
    for _ in range(3):  # and crosses L, a contact seen there too
        film.frame((HandSeen("A", ("A3", "R", "L"), {"R": ta, "L": tl}),))
    film.zones["R"] = "2S"
    for _ in range(10):  # A takes K♦ from A3, under its arm all along
        film.frame((HandSeen("A", ("A3",), {}),))
    film.zones["A3"] = "back"
    tm = film.t
    film.touch("A", "A1", 3, then="KD")  # and moves it into the space
    film.still(10)
    events = film.judge()
    assert [(e["card"], e["to"]) for e in _of(events, "play")][-1:] == [("2S", "R")]
    assert [(e["card"], e["from"], e["to"]) for e in _of(events, "move_to_space")] == [("KD", "A3", "A1")]
    assert not _of(events, "illegal_play") and tm > tl


def test_a_tied_card_gone_from_the_pile_to_show_the_other_was_taken_back_though_no_hand_was_seen_there() -> None:
    film = _opened(layout=dict(LAYOUT, B1="7S"))  # L shows 8♦: 7♠ and 9♥ fit it, 9♥ does not fit 7♠
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    film.touch("B", "B1", 2, then="empty")  # B lifts 7♠
    film.still(4)
    tb, ta = film.touch_both(("B", "L"), ("A", "L"), lag=0)  # dated to the same frame
    film.zones["L"] = "9H"  # A's on top
    film.still(20)
    film.zones["L"] = "7S"  # A takes it back, its hand not seen over L
    shown = film.t
    film.over("A", "A2", 40)  # and holds it over A2
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1:] == [("B", "7S", tb)]
    illegal = _of(events, "illegal_play")
    assert [(e["player"], e["card"], e.t) for e in illegal] == [("A", "9H", ta)]
    assert illegal[0]["called_at"] < shown + 10 / FPS


def test_a_card_waiting_for_a_rival_card_waits_past_the_tie_wait_while_the_rival_place_is_under_its_arm() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("B", ("B2",), {})
    for _ in range(3):
        film.frame((arm,))  # B's arm over B2: its 4♦ taken unseen
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))  # B lays 4♦ on R, never read
    lift = film.t
    for _ in range(2):
        film.frame((arm, HandSeen("A", ("A4",), {"A4": lift})))  # A lifts 2♠
    film.zones["A4"] = "back"
    ta = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("R",), {"R": ta})))  # and lays it on the 4♦
    film.zones["R"] = "2S"
    for _ in range(34):
        film.frame((arm,))  # 2♠ read on top, B2 still under B's arm just past the tie wait
    film.zones["B2"] = "back"
    film.still(10)  # B's arm gone: B2 shows the face-down card its 4♦ lay on
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_turned_unseen_waits_only_for_face_down_places_its_player_s_hand_touched() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto it: A2 shows its last card, face down
    film.play("A", "A4", "back", "R")  # 2♠ onto the 3♣: A4 shows its next card, face down
    turned = film.touch("A", "A4", 3)  # A turns A4's card (10♣), never read face up
    laid = film.t
    for _ in range(3):  # and lays it on the 9♥, the arm passing over A2, touching it not
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones["L"] = "10C"
    for _ in range(20):  # A4 read face down, the arm resting over A2 while 10♣ is read on L
        film.frame((HandSeen("A", ("A2",), {}),))
    cleared = film.t
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A4", "10C", turned)]
    ten = [e for e in _of(events, "play") if e["card"] == "10C"]
    assert [(e["from"], e.t) for e in ten] == [("A4", laid)]
    assert ten[0]["called_at"] < cleared  # not held until A2, which the hand never touched, is read


def test_a_card_waiting_turn_s_for_the_place_it_was_turned_on_is_judged_when_turn_s_is_up_though_nothing_changed() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back |"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})  # A turning up A2 is the only move
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    turned = film.t
    for _ in range(4):  # A turns up 5♦ on A2, never read face up
        film.frame((HandSeen("A", ("A2",), {"A2": turned}),))
    laid = film.t
    for _ in range(3):  # and lays it on 4♦, the arm over A2
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones.update(L="5D", A2="empty")
    read = film.t
    arm = HandSeen("A", ("A2",))
    for _ in range(40):  # the arm stays over A2 (it might show 5♦ still, the card on L a spit card) well past TURN_S
        film.frame((arm,))
    cleared = film.t
    film.still(6)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("A2", "5D")]
    plays = _of(events, "play")
    assert [(e["card"], e["from"], e.t) for e in plays] == [("5D", "A2", laid)]
    assert plays[0]["called_at"] <= read + TURN_S + 3 / FPS < cleared  # not held until the arm leaves A2


def test_a_card_turned_unseen_on_the_one_face_down_place_its_player_touched_is_judged_while_that_place_is_hidden() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto it: A2 shows its last card, face down
    film.play("A", "A4", "back", "R")  # 2♠ onto the 3♣: A4 shows its next card, face down
    turned = film.touch("A", "A4", 3)  # A turns A4's card (10♣), never read face up
    laid = film.t
    for _ in range(3):  # and lays it on the 9♥ (where it plays), no other hand near, the arm over A4
        film.frame((HandSeen("A", ("A4", "L"), {"L": laid}),))
    film.zones["L"] = "10C"
    for _ in range(20):  # the arm rests over A4 while 10♣ is read on L; A2, untouched, in view
        film.frame((HandSeen("A", ("A4",), {}),))
    cleared = film.t
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A4", "10C", turned)]
    ten = [e for e in _of(events, "play") if e["card"] == "10C"]
    assert [(e["from"], e.t) for e in ten] == [("A4", laid)]
    assert ten[0]["called_at"] < cleared  # not held until A4 is read



def test_a_card_turned_unseen_laid_a_frame_after_another_hand_touched_the_pile_waits_for_the_place_it_was_turned_on() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto it: A2 shows its last card, face down
    film.play("A", "A4", "back", "R")  # 2♠ onto the 3♣: A4 shows its next card, face down
    film.touch("A", "A4", 3)  # A turns A4's card (10♣), never read face up
    b_arm = HandSeen("B", ("B3",), {})
    film.frame((HandSeen("A", ("A4",), {}), HandSeen("B", ("B3",), {"B3": film.t})))  # B takes 8♠ under its arm
    film.zones["B3"] = "back"
    tb = film.t
    film.frame((HandSeen("A", ("A4",), {}), HandSeen("B", ("B3", "L"), {"L": tb})))  # and lays it on L
    laid = film.t
    for _ in range(3):  # a frame later A lays the 10♣ on it, the arm over A4
        film.frame((HandSeen("A", ("A4", "L"), {"L": laid}), HandSeen("B", ("B3", "L"), {"L": tb})))
    film.zones["L"] = "10C"
    for _ in range(4):  # 10♣ read on L, B3 still under B's arm
        film.frame((HandSeen("A", ("A4",), {}), b_arm))
    for _ in range(16):  # B3 read without the 8♠ while A's arm rests over A4
        film.frame((HandSeen("A", ("A4",), {}),))
    cleared = film.t
    film.still(40)
    events = film.judge()
    ten = [e for e in events if e.type in ("play", "illegal_play") and e["card"] == "10C"]
    assert ten and all(e["called_at"] >= cleared for e in ten)  # B's card may lie under it: A4 is waited for


def test_a_card_turned_unseen_does_not_wait_for_a_face_down_place_read_since_its_player_touched_it() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto it: A2 shows its last card, face down
    film.play("A", "A4", "back", "R")  # 2♠ onto the 3♣: A4 shows its next card, face down
    turned = film.touch("A", "A4", 3)  # A turns A4's card (10♣), never read face up
    film.still(3)  # A4 read face down again, no hand over it: the 10♣ left it
    laid = film.t
    for _ in range(3):  # A lays the 10♣ on the 2♠ (refused there), the arm over A4 again
        film.frame((HandSeen("A", ("A4", "R"), {"R": laid}),))
    film.zones["R"] = "10C"
    for _ in range(20):  # the arm rests over A4 while 10♣ is read on R
        film.frame((HandSeen("A", ("A4",), {}),))
    cleared = film.t
    film.still(6)
    events = film.judge()
    assert [(e["pile"], e["card"], e.t) for e in _of(events, "turn_up")] == [("A4", "10C", turned)]
    refused = [e for e in _of(events, "illegal_play") if e["card"] == "10C"]
    assert [(e["from"], e["to"], e.t) for e in refused] == [("A4", "R", laid)]
    assert refused[0]["called_at"] < cleared  # not held until A4 is read once more
