"""The referee's turn-ups dated on hand-made observation streams: each test is named after the rule it dates by."""

from __future__ import annotations

from test_judge import Film, _of, _opened, _run
from test_judge_spits import _one_card_to_turn

from referee.cards import parse_card
from referee.judge.spit.config import TURN_S
from referee.judge.spit.referee import SpitReferee
from referee.observations import HandSeen
from referee.rules.spit import SpitRules, SpitState


def test_a_turn_up_is_dated_by_its_player_s_touch_after_the_place_last_showed_its_face_down_card() -> None:
    film, referee = _one_card_to_turn()
    film.touch("A", "A2", 3)  # A's hand rests on A2 and leaves: the card still lies face down
    film.still(6)  # and is read so
    t = film.touch("A", "A2", 3, then="QH")  # A turns it up now
    film.still(10)
    assert [(e["card"], e.t) for e in _of(_run(film, referee), "turn_up")] == [("QH", t)]


def test_a_turn_up_after_a_move_off_its_place_under_one_touch_is_dated_after_the_place_was_read_face_down() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["", "back 9S"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "7D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A2": "9S", "B1": "KS", "L": "4D", "R": "7D"})
    film.still(4)
    film.over("A", "A2", 2)  # A's hand lifts 9♠ off A2, baring a face-down card
    film.zones["A2"] = "back"
    moved = film.t
    for _ in range(6):  # and lays it in the space A1, staying there; A2 is read face down meanwhile
        film.frame((HandSeen("A", ("A1",), {"A1": moved}),))
    turned = film.t
    for _ in range(4):  # A2 turning, its fingers never seen there, while the hand is still over A1
        film.frame((HandSeen("A", ("A1",), {"A1": moved}),), unread=("A2",))
    film.zones.update(A1="9S", A2="QH")  # Q♥ fits neither 4♦ nor 7♦, nor 9♠, nor K♠: nobody can move
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e.t) for e in _of(events, "move_to_space")] == [("9S", moved)]
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", turned)]
    assert [e.t for e in _of(events, "spit_call")] == [turned]


def test_a_turn_up_is_not_dated_before_its_place_was_last_read_face_down_if_only_for_a_frame() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back 5S"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "7D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "9C", "A2": "5S", "B1": "KS", "L": "4D", "R": "7D"})
    film.still(4)
    film.touch("A", "A2", 2, then="back")  # A lifts 5♠, baring a face-down card
    for _ in range(4):
        film.frame(unread=("A2",))
    laid = film.t
    film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))  # lays it on 4♦, the hand over A2 too
    rest = film.t
    for _ in range(3):
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid, "A2": rest}),))  # and at rest on A2: nothing turned
    film.zones["L"] = "5S"
    film.frame()  # A2 read face down, for this frame only
    for _ in range(3):
        film.frame(unread=("A2",))
    t = film.t
    film.over("A", "A2", 6)  # A's hand comes back and turns it, never seen at rest there
    film.zones["A2"] = "QH"  # Q♥ fits neither 5♠ nor 7♦: nobody can move
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", t)]
    assert [e.t for e in _of(events, "spit_call")] == [t]


def _turned_after_coming(frames_over: int) -> tuple[float, float, float]:
    """A's hand over A2's face-down card for `frames_over` frames, then touching it (its contact dated
    at the frame after those) while the card turns to Q♥: when the hand came, when it touched, and the
    turn-up's date."""
    film, referee = _one_card_to_turn()
    came = film.t
    film.over("A", "A2", frames_over)
    touched = film.t
    for _ in range(4):
        film.frame((HandSeen("A", ("A2",), {"A2": touched}),))
    film.zones["A2"] = "QH"
    film.still(10)
    [turn] = _of(_run(film, referee), "turn_up")
    assert turn["card"] == "QH"
    return came, touched, turn.t


def test_a_turn_up_touched_a_frame_after_its_player_s_hand_came_over_the_place_is_dated_from_when_the_hand_came() -> None:
    came, _, dated = _turned_after_coming(1)  # the least stirring, the contact's date, was the turn's first frame
    assert dated == came


def test_a_turn_up_touched_two_frames_after_its_player_s_hand_came_over_the_place_is_dated_by_the_touch() -> None:
    _, touched, dated = _turned_after_coming(2)  # the hand still reaching when it came over the place
    assert dated == touched


def test_a_turn_up_whose_contact_is_found_again_in_the_same_touch_keeps_its_first_date() -> None:
    film, referee = _one_card_to_turn()
    touched = film.t
    for _ in range(2):  # A's hand touches A2's card
        film.frame((HandSeen("A", ("A2",), {"A2": touched}),))
    film.frame((HandSeen("A", ("A2",)),))  # the card turning under it
    rest = film.t
    for _ in range(3):  # the hand at rest again on the card turned
        film.frame((HandSeen("A", ("A2",), {"A2": rest}),))
    film.zones["A2"] = "QH"
    film.still(10)
    assert [(e["card"], e.t) for e in _of(_run(film, referee), "turn_up")] == [("QH", touched)]


def test_a_card_laid_is_not_taken_for_one_turned_on_a_face_down_place_read_settled_and_untouched_since_within_reach() -> None:
    film, referee = _one_card_to_turn()
    film.still(50)  # A2 read face down, no hand near it, for longer than a hand's reach
    laid = (film.t, len(film.frames))
    film.touch("A", "L", 3, then="5H")  # A's hand lays 5♥ (which would play on 4♦ if turned on A2) on L
    film.frame(unread=("L",))
    _run(film, referee)
    assert referee._only_face_down("A", parse_card("5H"), "L", laid) is None  # not from A2: nothing was turned there


def test_a_contact_on_a_face_down_place_less_than_a_turn_and_a_lay_before_its_hand_laid_a_card_turned_nothing() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["5C", "back |"], "B": ["KS"]}, spit={"A": "2C", "B": "5H"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names} | {"A1": "5C", "A2": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    lifted = film.t
    for _ in range(2):  # A's hand over A1 and A2 lifts 5♣ off A1: the hand finder gives its contact to A2
        film.frame((HandSeen("A", ("A1", "A2"), {"A2": lifted}),))
    film.zones["A1"] = "empty"
    film.over("A", "A2", 3)
    laid = film.t
    for _ in range(3):  # and lays it on 4♦, still over A2
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones["L"] = "5C"
    film.over("A", "A2", 4)
    turned = film.touch("A", "A2", 3, then="QH")  # then turns A2's card up
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert [(e["card"], e.t) for e in _of(events, "play")] == [("5C", laid)]
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", turned)]


def test_a_turn_up_is_dated_after_its_place_was_read_face_down_though_its_hand_took_back_a_refused_card_since() -> None:
    film = _opened()
    film.play("A", "A2", "back", "L")  # 9♥ onto 8♦, baring a face-down card
    film.touch("A", "A2", 3)  # A's hand rests on A2 and leaves: the card still lies face down
    film.still(6)
    film.play("A", "A3", "back", "L")  # A lays K♦ on 9♥: refused
    film.touch("A", "L", 3, then="9H")  # and takes it back (that touch lays no card)
    film.touch("A", "A3", 2, then="KD")
    film.still(6)  # A2 read face down all the while
    t = film.touch("A", "A2", 3, then="QH")  # A turns it up now
    film.still(10)
    events = film.judge()
    assert [e["card"] for e in _of(events, "illegal_play")] == ["KD"]
    assert [(e["card"], e.t) for e in _of(events, "turn_up")] == [("QH", t)]


def test_a_contact_on_a_face_down_place_a_few_frames_from_the_one_turning_another_place_s_card_turned_nothing() -> None:
    rules = SpitRules()
    state = SpitState.position(rules, {"A": ["9C", "back |", "back |"], "B": ["KS"]}, spit={"A": "2C", "B": "5C"},
                               piles={"L": "4D", "R": "6D"})
    film = Film({z: "empty" for z in rules.place_names}
                | {"A1": "9C", "A2": "back", "A3": "back", "B1": "KS", "L": "4D", "R": "6D"})
    film.still(4)
    first = film.t
    for _ in range(2):  # the hand finder puts the contact of A's hand turning A2's card on A3 first
        film.frame((HandSeen("A", ("A3",), {"A3": first}),))
    turned = film.t
    for _ in range(3):  # then on A2, which shows Q♥ once the hand leaves it
        film.frame((HandSeen("A", ("A2", "A3"), {"A2": turned}),))
    film.zones["A2"] = "QH"
    film.over("A", "A3", 6)  # the hand stays over A3: it is not read meanwhile
    later = film.t
    for _ in range(3):  # and turns A3's card
        film.frame((HandSeen("A", ("A3",), {"A3": later}),))
    film.zones["A3"] = "9H"
    film.still(10)
    events = _run(film, SpitReferee(rules, state=state))
    assert sorted((e["card"], e.t) for e in _of(events, "turn_up")) == [("9H", later), ("QH", turned)]


def test_a_contact_on_a_face_down_place_a_frame_after_its_hand_laid_a_card_turned_nothing() -> None:
    film = _opened()
    film.over("A", "A2", 3)  # A's hand over A2 lifting its 9♥: no contact seen
    film.zones["A2"] = "back"
    laid = film.t
    for _ in range(2):  # laying it on L, the arm still over A2
        film.frame((HandSeen("A", ("A2", "L"), {"L": laid}),))
    film.zones["L"] = "9H"
    early = film.t
    for _ in range(2):  # the hand finder finds it on A2 as it leaves L: too soon to turn anything
        film.frame((HandSeen("A", ("A2",), {"A2": early}),))
    film.over("A", "A2", 6)
    turned = film.t
    for _ in range(3):  # back on A2, turning its card
        film.frame((HandSeen("A", ("A2",), {"A2": turned}),))
    film.zones["A2"] = "4C"
    film.still(8)
    events = film.judge()
    assert [(e.type, e["card"], e.t) for e in events if e.type in ("play", "turn_up")] == [
        ("play", "9H", laid), ("turn_up", "4C", turned)]


def test_a_turn_up_seen_no_later_than_a_turn_takes_after_its_place_was_read_face_down_is_dated_after_that_read() -> None:
    film, referee = _one_card_to_turn()
    read = film.frame()  # A2 read face down
    for _ in range(6):  # then changing, no hand found over it: the hand turning it missed
        film.frame(unread=("A2",))
    film.zones["A2"] = "QH"
    film.still(10)
    assert [(e["card"], e.t) for e in _of(_run(film, referee), "turn_up")] == [("QH", round(read + 1 / 30, 6))]


def test_a_turn_up_first_seen_longer_than_a_turn_takes_after_its_place_was_read_face_down_is_dated_at_that_sight() -> None:
    film, referee = _one_card_to_turn()
    film.frame()  # A2 read face down
    for _ in range(15):  # then changing for half a second, no hand found over it
        film.frame(unread=("A2",))
    film.zones["A2"] = "QH"
    seen = film.frame()
    film.still(10)
    [turn] = _of(_run(film, referee), "turn_up")
    assert turn["card"] == "QH" and turn.t >= round(seen - 1 / 30, 6)


def test_a_turn_up_whose_contact_began_as_its_card_was_first_read_is_dated_a_turn_s_length_before_that_contact() -> None:
    film, referee = _one_card_to_turn()
    film.over("A", "A2", 20)  # A's hand over A2, turning its card: no contact seen
    film.zones["A2"] = "QH"
    rest = film.frame()  # Q♥ read as the hand lifts
    for _ in range(3):  # the hand found at rest on it from then on
        film.frame((HandSeen("A", ("A2",), {"A2": rest}),))
    film.still(10)
    assert [(e["card"], e.t) for e in _of(_run(film, referee), "turn_up")] == [("QH", round(rest - TURN_S, 6))]
