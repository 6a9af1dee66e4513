"""The referee picking up the thread of a game from the table on hand-made observation streams: each test is named after the rule it checks."""

from __future__ import annotations

from test_judge import LAYOUT, Film, _of, _opened

from referee.judge.resume import replay
from referee.observations import HandSeen


def _two_covered_by_a_card_turned_unseen(film: Film) -> float:
    """B plays 4♦ on R's 3♣, turns 3♠ on B2 under its arm and lays it on R unread; A covers it with
    2♠ from A4 (no fit on 4♦): the time of A's touch."""
    film.play("B", "B2", "back", "R")
    arm = HandSeen("B", ("B2",), {})
    for _ in range(3):
        film.frame((HandSeen("B", ("B2",), {"B2": film.t}),))  # B turns 3♠ there, never read
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))  # and lays it on R
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    for _ in range(3):
        film.frame((arm,))
    ta = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("R",), {"R": ta})))  # and lays it on the 3♠
    film.zones["R"] = "2S"
    for _ in range(6):
        film.frame((arm,))
    film.still(90)  # B's arm gone: B2 shows the next face-down card
    return ta


def test_a_stock_top_lying_unexplained_on_a_pile_at_a_re_read_is_played_at_its_player_s_contact() -> None:
    film = _opened()  # R shows 3♣
    ta = _two_covered_by_a_card_turned_unseen(film)
    events = film.judge()
    assert _of(events, "resync") and not _of(events, "illegal_play")
    assert [(e["player"], e["card"], e["from"], e["to"], e.t) for e in _of(events, "play")][-1] == \
        ("A", "2S", "A4", "R", ta)
    assert not replay(events).refused  # a resume leaves it to the re-read logged after it


def test_a_card_whose_rival_touched_the_pile_a_frame_after_it_waits_for_the_rival_card_under_it() -> None:
    film = _opened()  # R shows 3♣
    arms = (HandSeen("A", ("A4",), {}), HandSeen("B", ("B2",), {}))
    for _ in range(4):
        film.frame(arms)  # A's and B's arms over A4 and B2: 2♠ and 4♦ taken unseen
    film.zones["A4"] = film.zones["B2"] = "back"
    ta = film.t
    film.frame((arms[1], HandSeen("A", ("A4", "R"), {"R": ta})))  # A lays 2♠ on R
    tb = film.t
    for _ in range(3):  # B's 4♦ touches a frame later (contacts are dated to about a frame): under the 2♠
        film.frame((HandSeen("A", ("A4", "R"), {"R": ta}), HandSeen("B", ("B2", "R"), {"R": tb})))
    film.zones["R"] = "2S"
    for _ in range(6):
        film.frame(arms)  # 2♠ read on R, both places still hidden
    film.touch("A", "R", 3, then="4D")  # A takes its 2♠ back: B's 4♦ shows
    film.zones["A4"] = "2S"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")][-1:] == [("B", "4D", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_stock_top_read_on_a_pile_for_a_frame_and_covered_is_played_at_its_player_s_contact_at_a_re_read() -> None:
    film = _opened()  # L shows 8♦
    armb = HandSeen("B", ("B3",), {})
    for _ in range(3):
        film.frame((armb, HandSeen("A", ("L",), {"L": film.t})))  # A lays a card on L, never read
    for _ in range(3):
        film.frame((armb,))  # B takes 8♠ from B3 under its arm
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B3", "L"), {"L": tb}),))  # and lays it there
    film.zones["B3"] = "back"
    film.frame((armb,), L="8S")  # read there for one frame
    film.touch("A", "A2", 2, then="back")  # A lifts 9♥
    ta = film.t
    for _ in range(3):
        film.frame((armb, HandSeen("A", ("L",), {"L": ta})))  # and lays it on the 8♠
    film.zones["L"] = "9H"
    film.zones["A1"] = "KH"  # a card no move explains: the table is read again
    film.still(90)
    events = film.judge()
    assert ("B", "8S", "B3", "L", tb) in [(e["player"], e["card"], e["from"], e["to"], e.t) for e in _of(events, "play")]


def test_a_card_waiting_for_a_rival_card_waits_on_while_a_hand_is_over_the_pile_past_the_tie_wait() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("B", ("B2",), {})
    for _ in range(3):
        film.frame((arm,))  # B's arm over B2: its 4♦ taken unseen
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))  # B lays 4♦ on R, never read
    film.zones["B2"] = "back"
    film.touch("A", "A4", 2, then="back")  # A lifts 2♠
    ta = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("R",), {"R": ta})))  # and lays it on the 4♦
    film.zones["R"] = "2S"
    for _ in range(24):
        film.frame((arm,))  # 2♠ read on top, waiting for B's card
    for _ in range(12):
        film.frame((arm, HandSeen("A", ("R",), {})))  # A's hand back over R past the wait: taking 2♠ back
    film.zones["R"] = "4D"
    film.still(10)
    events = film.judge()
    assert [(e["player"], e["card"], e.t) for e in _of(events, "play")] == [("B", "4D", tb)]
    assert [(e["player"], e["card"], e.t) for e in _of(events, "illegal_play")] == [("A", "2S", ta)]


def test_a_card_turned_unseen_shown_by_a_rival_taking_theirs_back_is_played_at_the_earlier_touch() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows its last card, face down
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows its last card, face down
    film.touch("A", "A2", 3, then="empty")  # A turns 5♠ there and takes it, unseen
    film.touch("B", "B2", 3, then="empty")  # B turns 9♦ there and takes it, unseen
    ta = film.touch("A", "R", 3)  # A lays 5♠ on R, never read
    tb = film.touch("B", "R", 3, then="9D")  # B lays 9♦ on it
    film.still(6)  # 9♦ read on R
    film.over("B", "R", 4)  # B's hand takes it back: 5♠ shows
    film.zones["R"] = "5S"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("A", "5S", "A2", ta)
    assert not [e for e in _of(events, "play") if e.t >= tb]


def test_a_stock_top_taken_back_soon_after_a_re_read_found_it_on_a_pile_is_not_played() -> None:
    film = _opened()  # R shows 3♣
    arm = HandSeen("B", ("B2",), {})
    for _ in range(3):
        film.frame((arm,))  # B's arm over B2: its 4♦ taken unseen
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))  # B lays 4♦ on R, never read
    film.zones["B2"] = "back"
    film.touch("A", "A1", 2, then="empty")  # A lifts 7♣
    for _ in range(3):
        film.frame((arm,))
    ta = film.t
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("R",), {"R": ta})))  # and lays it on the 4♦: no fit
    film.zones["R"] = "7C"
    for _ in range(66):
        film.frame((arm,))  # 7♣ lies there unexplained: the table is read again
    for _ in range(3):
        film.frame((arm, HandSeen("A", ("R",), {"R": film.t})))  # A takes it back: 4♦ shows
    film.zones["R"] = "4D"
    film.zones["A1"] = "7C"
    for _ in range(20):
        film.frame((arm,))
    film.still(10)
    events = film.judge()
    assert _of(events, "resync") and not [e for e in _of(events, "play") if e["card"] == "7C"]


def test_a_card_turned_unseen_covered_by_a_stock_card_of_the_same_player_is_played_before_it() -> None:
    film = _opened(layout=dict(LAYOUT, B3="6H", B4="9D"))  # L shows 8♦, R 3♣
    film.play("B", "B4", "back", "L")  # 9♦ onto 8♦: B4 shows a face-down card
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows its last card, face down
    arm = HandSeen("B", ("B2",), {})
    for _ in range(3):
        film.frame((HandSeen("B", ("B2",), {"B2": film.t}),))  # B turns 5♠ there, never read
    tb = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tb}),))  # and lays it on R, its arm over B2 all along
    film.zones["R"] = "5S"
    for _ in range(6):
        film.frame((arm,))  # 5♠ read on R, B2 still hidden
    for _ in range(2):
        film.frame((HandSeen("B", ("B2", "B3"), {"B3": film.t}),))  # B lifts 6♥
    film.zones["B3"] = "back"
    for _ in range(3):
        film.frame((arm,))
    tc = film.t
    for _ in range(3):
        film.frame((HandSeen("B", ("B2", "R"), {"R": tc}),))  # and lays it on the 5♠
    film.zones["R"] = "6H"
    for _ in range(6):
        film.frame((arm,))
    film.zones["B2"] = "empty"
    film.still(10)
    events = film.judge()
    assert [(e["pile"], e["card"]) for e in _of(events, "turn_up")] == [("B2", "5S")]
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-2:] == \
        [("B", "5S", "B2", tb), ("B", "6H", "B3", tc)]


def test_a_card_shown_under_a_card_taken_back_to_its_place_is_not_that_player_s_card_turned_before_it() -> None:
    film = _opened()  # L shows 8♦, R 3♣
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦: A2 shows its last card, face down
    film.play("A", "A4", "back", "R")  # 2♠ onto 3♣: A4 shows a face-down card
    film.play("B", "B5", "back", "R")  # A♣ onto 2♠: B5 shows a face-down card
    arm_a, arm_b = HandSeen("A", ("A2",), {}), HandSeen("B", ("B5",), {})
    for _ in range(3):  # A and B turn 2♥ and 9♦ there, their arms over A2 and B5 from now on
        film.frame((HandSeen("A", ("A2",), {"A2": film.t}), HandSeen("B", ("B5",), {"B5": film.t})))
    ta = film.t
    for _ in range(3):
        film.frame((arm_b, HandSeen("A", ("A2", "R"), {"R": ta})))  # A lays 2♥ on R, never read
    tb = film.t
    for _ in range(3):
        film.frame((arm_a, HandSeen("B", ("B5", "R"), {"R": tb})))  # B lays 9♦ on it
    film.zones["R"] = "9D"
    for _ in range(6):
        film.frame((arm_a, arm_b))  # 9♦ read on R
    t = film.t
    for _ in range(3):
        film.frame((arm_a, HandSeen("B", ("B5", "R"), {"R": t})))  # B takes it back: 2♥ shows
    film.zones["R"] = "2H"
    for _ in range(6):
        film.frame((arm_a, arm_b))
    t = film.t
    for _ in range(3):
        film.frame((arm_a, HandSeen("B", ("B5",), {"B5": t})))  # and puts it back in its place, face up
    film.zones["B5"] = "9D"
    for _ in range(10):
        film.frame((arm_a,))
    film.zones["A2"] = "empty"
    film.still(20)
    events = film.judge()
    assert [(e["player"], e["card"], e["from"], e.t) for e in _of(events, "play")][-1] == ("A", "2H", "A2", ta)


def test_a_card_covered_by_its_own_player_s_next_card_that_fits_on_it_was_not_taken_back() -> None:
    film = _opened(layout=dict(LAYOUT, A2="6H"))  # R shows 3♣
    film.play("B", "B2", "back", "R")  # 4♦ onto 3♣: B2 shows a face-down card
    film.touch("A", "A2", 2, then="back")  # A lifts 6♥
    armb = HandSeen("B", ("B2",), {})
    for _ in range(4):
        film.frame((armb,))  # B turns 5♠ on B2 under its arm and takes it, never read
    t = film.t
    for _ in range(3):  # B lays 5♠ on R and A its 6♥ on it, both contacts seen in one frame
        film.frame((HandSeen("B", ("B2", "R"), {"R": t}), HandSeen("A", ("R",), {"R": t})))
    film.zones["R"] = "6H"  # the 5♠ is never read
    for _ in range(3):
        film.frame((armb,))
    film.still(3)
    film.play("A", "A1", "back", "R")  # A lays its next card, 7♣, on its 6♥
    film.still(60)
    events = film.judge()
    assert not _of(events, "illegal_play")
    assert ("A", "6H", t) in [(e["player"], e["card"], e.t) for e in _of(events, "play")]
