"""Hands over the table: found against the still-table reference, with their side, the zones they cover and first-contact times."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from referee.observations import HandSeen
from referee.pipeline.sources import VideoFile
from referee.vision.calibrate import calibrate_manual, calibrate_markers
from referee.vision.hands import BadHandConfig, Hand, HandConfig, HandFinder, TableView, _rooted, _Step
from test_pipeline_clip import Clip, clip  # noqa: F401  (the shared clip fixture)

FRAME = 1 / 30


def _hands_over(clip: Clip) -> list[tuple[float, tuple[HandSeen, ...]]]:
    out = []
    finder = None
    for frame in VideoFile(clip.video):
        if finder is None:
            view = TableView(calibrate_markers(frame.image))
            finder = HandFinder(view)
        out.append((frame.t, finder.update(view.warp(frame.image), frame.t, frame.index)))
    return out


@pytest.fixture(scope="module")
def seen(clip: Clip) -> list[tuple[float, tuple[HandSeen, ...]]]:  # noqa: F811
    return _hands_over(clip)


def _first_contact(seen: list[tuple[float, tuple[HandSeen, ...]]], side: str, zone: str, after: float) -> float:
    for t, hands in seen:
        for hand in hands:
            if t >= after and hand.side == side and zone in hand.contact:
                return hand.contact[zone]
    raise AssertionError(f"no contact of {side} on {zone} after {after} s")


def test_hands_have_their_side_and_first_contact_within_a_frame(clip: Clip, seen) -> None:  # noqa: F811
    touches = []
    for event in clip.truth:
        if event.type == "play" and event.t < 5.3:
            touches.append((event["player"], event["to"], event.t))
        if event.type == "spit" and event.t < 2.0:  # the opening spit
            piles = {"A": "L", "B": "R"}
            touches += [(player, piles[player], t) for player, t in event["contact"].items()]
    assert len(touches) >= 5
    for player, zone, t in touches:
        found = _first_contact(seen, player, zone, t - 0.3)
        assert abs(found - t) <= FRAME + 1e-6, (player, zone, t, found)


def test_no_hand_is_seen_on_the_empty_still_table(seen) -> None:  # noqa: F811
    assert seen[0][1] == () and seen[1][1] == ()
    # every hand seen touching a zone lies over it, and contacts are never later than their frame
    for t, hands in seen:
        for hand in hands:
            assert hand.side in ("A", "B")
            assert all(when <= t + 1e-9 and zone in hand.over for zone, when in hand.contact.items())


def _table(calibration_size: tuple[int, int] = (400, 300)):  # type: ignore[no-untyped-def]
    width, height = calibration_size
    calibration = calibrate_manual((width, height), [(0, 0), (width, 0), (width, height), (0, height)], 80.0, 60.0)
    image = np.full((height, width, 3), 150, np.uint8)
    return calibration, image


def _watching_l():  # type: ignore[no-untyped-def]
    """A hand finder that has learned the empty table: the calibration, the table, its view, the
    finder and pile L's centre in pixels."""
    calibration, table = _table()
    view = TableView(calibration)
    finder = HandFinder(view)
    finder.update(view.warp(table), 0.0, 0)
    target = calibration.to_image(np.array(calibration.layout.zone("L").centre))
    return calibration, table, view, finder, (int(target[0]), int(target[1]))


def test_two_arms_meeting_over_a_pile_are_split_between_the_two_edges() -> None:
    calibration, table = _table()
    view = TableView(calibration)
    finder = HandFinder(view)
    finder.update(view.warp(table), 0.0, 0)
    frame = table.copy()
    cx = int(calibration.to_image(np.array(calibration.layout.zone("L").centre))[0])
    cv2.rectangle(frame, (cx - 22, 0), (cx + 22, 150), (40, 80, 200), -1)  # B's arm from the far edge
    cv2.rectangle(frame, (cx - 25, 150), (cx + 25, 299), (30, 140, 60), -1)  # A's arm from the near edge
    hands = finder.update(view.warp(frame), 1 / 30, 1)
    assert sorted(h.side for h in hands) == ["A", "B"]
    assert all("L" in h.over for h in hands)


def _contacts_reaching_l(reaches: list[float], edge_at: int | None = None) -> list[dict[str, float]]:
    """A's textured arm reaching L from the near edge, `reaches[i]` of the way in frame i + 1 (a
    thin bright card edge beyond its fingers in frame `edge_at`): the hand's contacts in each frame."""
    calibration, table = _table()
    view = TableView(calibration)
    finder = HandFinder(view)
    finder.update(view.warp(table), 0.0, 0)
    target = calibration.to_image(np.array(calibration.layout.zone("L").centre))
    x = int(target[0])
    sleeve = np.random.default_rng(0).integers(30, 110, (300, 44, 3), dtype=np.uint8)
    contacts = []
    for i, reach in enumerate(reaches, start=1):
        frame = table.copy()
        top = int(299 - (299 - target[1]) * reach)
        frame[top:300, x - 22:x + 22] = sleeve[: 300 - top]
        if i == edge_at:
            frame[top - 22:top, x - 1:x + 1] = (240, 240, 240)
        hands = finder.update(view.warp(frame), i / 30, i)
        assert [h.side for h in hands] == ["A"]
        contacts.append(dict(hands[0].contact))
    return contacts


def test_a_hand_at_rest_on_a_pile_touches_it_from_the_frame_it_stopped() -> None:
    contacts = _contacts_reaching_l([0.3, 0.6, 0.85, 0.97, 1.0, 1.0, 1.0, 1.0])  # slowing down, then at rest
    touching = [i for i, contact in enumerate(contacts, start=1) if contact]
    assert touching == [6, 7, 8]  # seen at rest one frame after it stopped (frame 5)...
    assert contacts[-1] == contacts[5] == {"L": pytest.approx(5 / 30)}  # ...and dated to when it stopped


def test_a_hand_of_the_tables_colour_is_found_from_its_sleeve_to_its_fingers() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    frame = table.copy()
    frame[y + 60:300, x - 22:x + 22] = 40  # a dark sleeve from the near edge
    frame[y - 8:y + 60, x - 22:x + 22] = 158  # a bare hand barely lighter than the table (24 grey levels in all)
    hands = finder.update(view.warp(frame), 1 / 30, 1)
    assert [h.side for h in hands] == ["A"]
    assert calibration.layout.locate(np.array(hands[0].position)) == "L"  # its fingertips, not its cuff


def test_a_bare_arm_of_the_tables_colour_is_found_by_the_card_its_hand_covers() -> None:
    calibration, table = _table()
    view = TableView(calibration)
    finder = HandFinder(view)
    x, y = (int(v) for v in calibration.to_image(np.array(calibration.layout.zone("L").centre)))
    table[y - 20:y + 20, x - 14:x + 14] = 250  # a card lying on L, learned with the table
    finder.update(view.warp(table), 0.0, 0)
    frame = table.copy()
    frame[y - 24:300, x - 22:x + 22] = 158  # a bare arm barely lighter than the table (24 grey levels in all)
    hands = finder.update(view.warp(frame), 1 / 30, 1)
    assert [h.side for h in hands] == ["A"]  # nothing of it differs clearly but where it covers the card
    assert "L" in hands[0].over


def test_a_faint_change_reaching_a_players_edge_is_no_arm() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    frame = table.copy()
    frame[y - 12:300, x - 22:x + 22] = 158  # as faint as a bare arm of the table's colour, covering nothing
    assert finder.update(view.warp(frame), 1 / 30, 1) == ()


def test_a_hands_faint_shadow_hides_no_zone() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    frame = table.copy()
    frame[y + 30:300, x - 22:x + 22] = 40  # the arm, short of L
    frame[y - 30:y + 30, x - 40:x + 40] = 142  # its shadow over L (24 grey levels darker in all)
    hands = finder.update(view.warp(frame), 1 / 30, 1)
    assert [h.side for h in hands] == ["A"]
    assert "L" not in hands[0].over


def test_a_card_laid_down_is_no_part_of_the_arm_that_moves_on() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    rng = np.random.default_rng(1)
    over = []
    for i in range(1, 13):
        frame = table.copy()
        frame[y - 20:y + 20, x - 14:x + 14] = 250  # the card laid on L, lying still
        frame[y + 20:300, x - 14:x + 14] = 158  # the pale hand's shadow joining it to the arm
        frame[y + 40:300, x + 14:x + 50] = rng.integers(30, 110, (260 - y, 36, 3), dtype=np.uint8)  # the arm, stirring
        hands = finder.update(view.warp(frame), i / 30, i)
        assert [h.side for h in hands] == ["A"]
        over.append("L" in hands[0].over)
    assert over[0] and not any(over[-3:])


def test_a_hand_turning_a_face_down_card_touches_it_from_the_frame_it_stirred_least_in_between_reach_and_turn() -> None:
    calibration, table = _table()
    view = TableView(calibration)
    target = calibration.to_image(np.array(calibration.layout.zone("L").centre))
    x = int(target[0])
    sleeve = np.random.default_rng(0).integers(30, 110, (300, 44, 3), dtype=np.uint8)
    flipping = np.random.default_rng(2)
    contacts: dict[frozenset[str], list[dict[str, float]]] = {}
    for face_down in (frozenset(), frozenset({"L"})):
        finder = HandFinder(view)
        finder.update(view.warp(table), 0.0, 0)
        contacts[face_down] = []
        for i, reach in enumerate([0.3, 0.6, 0.8] + [1.0] * 11, start=1):  # over L from frame 4, still in 5
            frame = table.copy()
            top = int(299 - (299 - target[1]) * reach)
            frame[top:300, x - 22:x + 22] = sleeve[: 300 - top]
            if 6 <= i <= 10:  # the card turning over under the fingers
                frame[top:top + 25, x - 22:x + 22] = flipping.integers(0, 255, (25, 44, 3), dtype=np.uint8)
            hands = finder.update(view.warp(frame), i / 30, i, face_down)
            contacts[face_down].append(dict(hands[0].contact))
    turned = contacts[frozenset({"L"})]
    assert turned[4] == turned[-1] == {"L": pytest.approx(5 / 30)}  # found still, then at rest once turned
    assert turned[5:10] == [{}] * 5
    assert contacts[frozenset()][-1]["L"] > 9 / 30  # a card landing: dated when the hand stopped stirring


def _turn_dated(stirrings: list[float]) -> float:
    """The date `HandFinder._turned` gives a hand on face-down L that stirred so in frames 0, 1, ...
    (at rest from the first frame stirring under `stir_share`)."""
    _, _, _, finder, _ = _watching_l()
    history = [_Step(i * FRAME, s, s <= finder.config.stir_share, (0.0, 0.0), "L") for i, s in enumerate(stirrings)]
    return finder._turned(history, "L")


def test_a_turn_is_dated_at_the_reach_s_end_though_the_top_of_the_hand_s_lift_stirred_less() -> None:
    reach_end = 3
    assert _turn_dated([0.8, 0.6, 0.4, 0.25, 0.5, 0.6, 0.2, 0.5, 0.3, 0.02]) == pytest.approx(reach_end * FRAME)


def test_a_reach_slowing_on_its_way_is_not_taken_for_its_end() -> None:
    reach_end = 4
    assert _turn_dated([0.8, 0.6, 0.7, 0.4, 0.2, 0.5, 0.6, 0.25, 0.5, 0.02]) == pytest.approx(reach_end * FRAME)


def test_settings_are_checked() -> None:
    with pytest.raises(BadHandConfig):
        HandConfig(threshold=0)
    with pytest.raises(BadHandConfig):
        HandConfig(still_frames=10, forget_frames=5)
    calibration, _ = _table()
    with pytest.raises(BadHandConfig):
        HandFinder(TableView(calibration), players=("A", "Z"))


def test_a_hand_beside_the_card_it_laid_down_before_touches_the_place_under_its_own_fingers() -> None:
    calibration, table = _table()  # A2 spans x 131-176 px, A3 x 178-222 px, both from y 227 px to the near edge
    view = TableView(calibration)
    finder = HandFinder(view)
    finder.update(view.warp(table), 0.0, 0)
    sleeve = np.random.default_rng(3).integers(30, 110, (80, 60, 3), dtype=np.uint8)
    # the hand lays a card on A3 holding its lower end, then moves to A2 (its wrist still against
    # that card, which lies in the same row: the arm's leading edge is that card's and its own)
    arm = [(185, 265, 215)] * 3 + [(170, 250, 210), (150, 240, 190)] + [(134, 250, 173)] * 6
    contacts = []
    for i, (left, top, right) in enumerate(arm, start=1):
        frame = table.copy()
        frame[232:295, 181:220] = 250  # the card laid on A3
        frame[top:300, left:right] = sleeve[: 300 - top, : right - left]
        if left == 134:
            frame[232:250, 145:165] = sleeve[50:68, :20]  # its fingers, narrower than the card
            frame[282:300, 173:185] = sleeve[:18, :12]  # the wrist against A3's card
        hands = finder.update(view.warp(frame), i / 30, i)
        assert [h.side for h in hands] == ["A"]
        contacts.append(dict(hands[0].contact))
    assert contacts[-1] == {"A2": pytest.approx(6 / 30)}


def test_a_hand_resting_on_a_pile_keeps_its_touch_when_the_other_players_arm_meets_it_there() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    rng = np.random.default_rng(5)
    sleeve_a = rng.integers(30, 110, (300, 44, 3), dtype=np.uint8)
    sleeve_b = rng.integers(160, 240, (300, 40, 3), dtype=np.uint8)
    reach = y - 25  # A's fingers reach past L's middle
    contacts = []
    # A's hand reaches L and rests there; B's arm then comes from the far edge onto A's fingers
    for i, (top, b_end) in enumerate([(220, 0), (170, 0), (reach, 0), (reach, 0), (reach, 60), (reach, 100),
                                      (reach, reach + 8), (reach, reach + 8), (reach, reach + 8)], start=1):
        frame = table.copy()
        frame[top:300, x - 22:x + 22] = sleeve_a[: 300 - top]
        if b_end:
            frame[0:b_end, x - 10:x + 30] = sleeve_b[:b_end]
        hands = finder.update(view.warp(frame), i / 30, i)
        contacts.append({h.side: dict(h.contact) for h in hands})
    assert contacts[3]["A"] == {"L": pytest.approx(3 / 30)}
    assert all(c["A"] == contacts[3]["A"] for c in contacts[4:])
    assert sorted(contacts[-1]) == ["A", "B"]


def _meeting(finder, view, table, x, steps, b_half=22):  # type: ignore[no-untyped-def]
    """Frames of two arms (A dark from the near edge, B light from the far edge, `b_half` px either
    side of its middle, A drawn on top) given per frame as (A's top row, B's bottom row, B's column
    shift): the hands seen in each."""
    rng = np.random.default_rng(7)
    sleeve_a = rng.integers(30, 110, (300, 44, 3), dtype=np.uint8)
    sleeve_b = rng.integers(160, 240, (300, 44, 3), dtype=np.uint8)
    seen = []
    for i, (a_top, b_end, shift) in enumerate(steps, start=1):
        frame = table.copy()
        if b_end:
            frame[0:b_end, x - b_half + shift:x + b_half + shift] = sleeve_b[:b_end, :2 * b_half]
        if a_top < 300:
            frame[a_top:300, x - 22:x + 22] = sleeve_a[: 300 - a_top]
        seen.append({h.side: h for h in finder.update(view.warp(frame), i / 30, i)})
    return seen


def test_an_arm_lying_on_the_other_over_a_pile_keeps_the_pixels_of_its_own_colours() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    reach_b = y + 30  # B's hand rests past L's middle; A's hand then comes over it, past the middle the other way
    steps = [(300, 40, 0), (300, 40, 0), (260, 0, 0), (260, 0, 0), (300, reach_b, 0), (300, reach_b, 0),
             (y + 60, reach_b, 0), (y + 20, reach_b, 0), (y - 30, reach_b, 0), (y - 30, reach_b, 0), (y - 30, reach_b, 0)]
    seen = _meeting(finder, view, table, x, steps)
    a_tip = view.calibration.to_image(np.array(seen[-1]["A"].position))
    assert a_tip[1] < y - 20  # A's fingers, on top, reach past L's middle towards B
    assert "L" in seen[-1]["A"].contact


def test_a_hand_coming_down_over_the_hand_on_a_pile_lies_over_it() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    reach_b = y + 30  # B's hand rests on L; A's hand then comes down over it
    steps = [(300, 40, 0), (300, 40, 0), (260, 0, 0), (260, 0, 0), (300, reach_b, 0), (300, reach_b, 0),
             (y + 60, reach_b, 0), (y + 20, reach_b, 0), (y - 30, reach_b, 0), (y - 30, reach_b, 0), (y - 30, reach_b, 0)]
    seen = _meeting(finder, view, table, x, steps)
    assert "L" in seen[-1]["B"].contact and "L" in seen[-1]["A"].contact
    assert seen[-1]["B"].under == ("A",) and seen[-1]["A"].under == ()
    assert all(hand.under == () for hands in seen[:7] for hand in hands.values())  # before A came over it


def test_a_hand_hidden_under_the_other_arm_grips_the_pile_ahead_of_its_visible_end() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    gap = 5  # B's arm comes down between its stock places B4 and B3 and ends under A's arm, short of L
    steps = [(300, 40, 30), (300, 40, 30), (260, 0, 0), (260, 0, 0), (y - 36, 0, 0), (y - 36, 0, 0),
             *[(y - 36, y - 32, gap)] * 6]
    seen = _meeting(finder, view, table, x, steps, b_half=15)
    assert "L" in seen[-1]["B"].contact


def test_a_hand_hidden_under_the_other_arm_is_not_at_rest_while_that_arm_moves() -> None:
    calibration, table, view, finder, (x, y) = _watching_l()
    gap = 5  # B's arm ends under A's arm over L; A's arm goes on moving over it, then stops
    arrive = [(300, 40, 30), (300, 40, 30), (260, 0, 0), (260, 0, 0), (y - 36, 0, 0), (y - 36, 0, 0),
              (y - 36, y - 32, gap), (y - 36, y - 32, gap)]
    moving = [(y - 40 + 4 * (i % 2), y - 32, gap) for i in range(4)]
    still = [(y - 36, y - 32, gap)] * 4
    seen = _meeting(finder, view, table, x, arrive + moving + still, b_half=15)
    during = seen[len(arrive):len(arrive) + len(moving)]
    assert all("B" in hands and "L" not in hands["B"].contact for hands in during)
    assert "L" in seen[-1]["B"].contact


def test_a_piece_cut_off_one_arm_goes_to_the_other_arm_only_where_it_borders_it() -> None:
    height, width = 40, 30
    a, b = np.zeros((height, width), bool), np.zeros((height, width), bool)
    a[20:, 10:16] = True  # A's arm from the bottom edge
    b[:18, 10:16] = True  # B's arm from the top edge
    a[12:16, 16:19] = True  # a piece the split gave A, lying against B's arm (B's fingers)
    a[30:34, 22:27] = True  # a card beside A's arm, cut off it and far from B's arm
    edges = {"A": np.zeros_like(a), "B": np.zeros_like(b)}
    edges["A"][-2:, :] = True
    edges["B"][:2, :] = True
    parts = _rooted({"A": a, "B": b}, {p: e & (a | b) for p, e in edges.items()})
    assert parts["B"][12:16, 16:19].all() and not parts["A"][12:16, 16:19].any()
    assert not parts["A"][30:34, 22:27].any() and not parts["B"][30:34, 22:27].any()
    assert parts["A"][20:, 10:16].all() and parts["B"][:18, 10:16].all()


def test_a_hand_lying_still_on_its_zone_keeps_its_touch_while_only_its_tip_jumps() -> None:
    """A's hand comes to rest on L (frame 5); in frame 8 a card's thin edge shows beyond its fingers
    for a frame, its tip jumping 4 cm and back while its pixels lie still: its touch of L stays the
    one dated when it stopped, and is not made again later."""
    contacts = _contacts_reaching_l([0.3, 0.6, 0.85, 0.97, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], edge_at=8)
    assert all(contact == {"L": pytest.approx(5 / 30)} for contact in contacts[5:])


def test_a_hand_gripping_the_spit_pile_it_gripped_before_comes_to_rest_there_while_only_its_tip_jumps() -> None:
    """A's hand stops on L in frame 5; in the next frame, the first it is seen still, a card's thin
    edge shows beyond its fingers, its tip jumping 4 cm while its grip stays on L: it touches L from
    that frame on, dated when it stopped (not two frames later, once its tip lies still again)."""
    contacts = _contacts_reaching_l([0.3, 0.6, 0.85, 0.97, 1.0, 1.0, 1.0, 1.0], edge_at=6)
    assert [bool(contact) for contact in contacts] == [False] * 5 + [True] * 3
    assert all(contact == {"L": pytest.approx(5 / 30)} for contact in contacts[5:])


def test_a_hand_the_other_arm_comes_over_on_its_pile_does_not_rest_there_while_its_tip_jumps() -> None:
    """A's hand grips L in two frames, lying still in the second while its tip jumps 5 cm: it rests on L,
    unless B's arm took 6 cm² of its pixels on L in that frame (B's arm sweeping over it there: A's grip
    on L may be the split's doing)."""
    def touches(covered: dict[tuple[str, str], int]) -> dict[str, float]:
        _, _, view, finder, _ = _watching_l()
        mask = np.ones((view.size[1], view.size[0]), bool)
        for frame, (tip, stirring, cover) in enumerate([((30.0, 28.0), 0.5, {}), ((30.0, 30.0), 0.4, {}),
                                                        ((30.0, 35.0), 0.02, covered)], start=1):
            finder.hands = (Hand("A", mask, ("L",), tip, (30.0, -9.0), "L", stirring, covered=cover),)
            seen = finder._report(frame / 30, frame, frozenset())
        return dict(seen[0].contact)

    assert touches({}) == {"L": pytest.approx(2 / 30)}
    assert touches({("B", "L"): 96}) == {}


def _contacts_on_l_taken(taken: list[int], stirrings: tuple[float, ...], given: int = 0) -> list[bool]:
    """Whether A's hand, gripping L with its tip still and stirring so frame by frame, touches L in
    each frame where B's arm took so many of its pixels on L (and gave `given` of its own back)."""
    _, _, view, finder, _ = _watching_l()
    mask = np.ones((view.size[1], view.size[0]), bool)
    out = []
    for frame, (stirring, took) in enumerate(zip(stirrings, taken), start=1):
        a = Hand("A", mask, ("L",), (30.0, 30.0), (30.0, -9.0), "L", stirring,
                 covered={("B", "L"): took} if took else {})
        b = Hand("B", mask, ("L",), (30.0, 26.0), (30.0, 60.0), "L", 0.3,
                 covered={("A", "L"): given} if took and given else {})
        finder.hands = (a, b)
        seen = {hand.side: hand for hand in finder._report(frame / 30, frame, frozenset())}
        out.append("L" in seen["A"].contact)
    return out


def test_a_hand_slowing_over_its_pile_that_the_other_arm_takes_pixels_from_does_not_come_to_rest_in_that_frame() -> None:
    """A's hand slows over L, stirring 0.2-0.45 for five frames, then 0.05 in frame 6 with its tip still.
    Where B's arm took 6 cm² of its pixels on L in that frame (and took back none), A is not at rest
    there: it touches L from frame 7 on, even where B's arm goes on taking as much in frame 7 (A was
    seen still on L in frame 6). Where B gave up as many of its own pixels on L to A (the split
    shifting between two moving arms), A comes to rest in frame 6. Where A moves on in frame 7 (a
    card laid and left), it touched L in frame 6: the touch is reported in frame 7."""
    slowing = (0.45, 0.4, 0.35, 0.3, 0.2, 0.05, 0.01, 0.0)
    taken = [0, 0, 0, 0, 0, 96, 0, 0]
    assert _contacts_on_l_taken(taken, slowing) == [False] * 6 + [True, True]
    assert _contacts_on_l_taken([0, 0, 0, 0, 0, 96, 96, 0], slowing) == [False] * 6 + [True, True]
    assert _contacts_on_l_taken(taken, slowing, given=96) == [False] * 5 + [True] * 3
    # A laid its card in frame 6 and moves on in frame 7: it touched L in frame 6, reported in frame 7
    assert _contacts_on_l_taken(taken, (0.45, 0.4, 0.35, 0.3, 0.2, 0.05, 0.9, 0.9)) == [False] * 6 + [True, False]
    # or lies on L with its stirring over `stir_share` in frame 7 (the other arm moving over it)
    assert _contacts_on_l_taken(taken, (0.45, 0.4, 0.35, 0.3, 0.2, 0.05, 0.15, 0.05))[6]


def test_a_hand_coming_in_fast_that_the_other_arm_takes_pixels_from_on_its_pile_comes_to_rest_there() -> None:
    """A's hand comes in fast (over half its pixels changing three frames before) and lies still on L
    in frame 5 as B's arm takes 6 cm² of its pixels there: it has stopped (the first hand of a race)
    and touches L in frame 5. So too where it slowed for four frames (0.41, 0.31, 0.17, 0.2) after
    coming in at 0.59 and lies still in frame 6."""
    assert _contacts_on_l_taken([0, 0, 0, 0, 96, 0, 0], (0.9, 0.8, 0.6, 0.3, 0.05, 0.01, 0.0)) == [False] * 4 + [True] * 3
    assert _contacts_on_l_taken([0, 0, 0, 0, 0, 96, 0], (0.59, 0.41, 0.31, 0.17, 0.2, 0.02, 0.0)) == [False] * 5 + [True] * 2


def test_a_hand_under_the_other_arm_grips_the_pile_that_arm_covers_not_the_one_beside_it() -> None:
    """B's hand lies on L and A's came down over it there (taking 3 cm² of its pixels on L): B's
    visible end stops in the gap beside R and going back along it meets R, which it is not over;
    A's hand is over L and grips it: B grips L. A hand that the other arm did not come over keeps
    its grip (two hands on the two piles, their arms touching), and so does a hand over its pile,
    or one whose grip the other's does not contradict, or one seen over its pile a frame before (B
    laying a card on R, A's arm sweeping past onto L over B's arm)."""
    _, _, view, finder, _ = _watching_l()
    mask = np.zeros((view.size[1], view.size[0]), bool)
    came_over = {("A", "L"): 48}
    a = Hand("A", mask, ("A3", "L"), (30.0, 30.0), (40.0, -9.0), "L")
    b = Hand("B", mask, ("B3",), (38.0, 28.0), (30.0, 65.0), "R", covered=came_over)
    assert [hand.grip_zone for hand in finder._under_other_pile([a, b], 1.0)] == ["L", "L"]
    beside = replace(b, covered={})
    assert [hand.grip_zone for hand in finder._under_other_pile([a, beside], 1.0)] == ["L", "R"]
    b_over_r = replace(b, over=("B3", "R"))
    assert [hand.grip_zone for hand in finder._under_other_pile([a, b_over_r], 1.0)] == ["L", "R"]
    a_not_over = replace(a, over=("A3",))
    assert [hand.grip_zone for hand in finder._under_other_pile([a_not_over, b], 1.0)] == ["L", "R"]
    assert finder._under_other_pile([b], 1.0) == [b]
    finder._tracks["B"].history.append(_Step(0.9, 0.05, True, (40.0, 27.0), "R", {}, ("B3", "R")))
    assert [hand.grip_zone for hand in finder._under_other_pile([a, b], 1.0)] == ["L", "R"]  # B was over R


def test_a_hand_given_the_pile_the_other_arm_covers_lies_beneath_it_once_that_arm_no_longer_comes_over_it() -> None:
    """B's hand is given L, the pile A's arm came over it on. In a frame in which A's arm still takes
    B's pixels there, B's own stirring dates its rest (it lay there first); once A's arm took them in
    an earlier frame and takes none now, B lies hidden under it (`grips_beneath`: at rest only where
    A's arm is)."""
    _, _, view, finder, _ = _watching_l()
    mask = np.zeros((view.size[1], view.size[0]), bool)
    a = Hand("A", mask, ("A3", "L"), (30.0, 30.0), (40.0, -9.0), "L")
    b = Hand("B", mask, ("B3",), (38.0, 28.0), (30.0, 65.0), "R", covered={("A", "L"): 48})
    coming = finder._under_other_pile([a, b], 1.0)[1]
    assert coming.grip_zone == "L" and not coming.grips_beneath
    finder._tracks["B"].history.append(_Step(0.95, 0.3, False, (38.0, 28.0), "R", {("A", "L"): 48}, ("B3",)))
    lying = finder._under_other_pile([a, replace(b, covered={})], 1.0)[1]
    assert lying.grip_zone == "L" and lying.grips_beneath


def test_a_hand_under_the_other_arm_gripping_the_other_players_place_or_nothing_grips_the_pile_that_arm_covers() -> None:
    """Where the split leaves B's hand a strip along A's arm ending on A's place A2 (no player
    reaches the other's places), B grips the spit pile it is over; where B grips nothing, A's arm
    came over it on L and its visible end lies at the edge of L, which A's hand is over and grips,
    B grips L."""
    _, _, view, finder, _ = _watching_l()
    mask = np.zeros((view.size[1], view.size[0]), bool)
    a = Hand("A", mask, ("A3", "L"), (30.0, 30.0), (40.0, -9.0), "L")
    strip = Hand("B", mask, ("B4", "L"), (30.0, 8.0), (24.0, 65.0), "A2")
    assert [hand.grip_zone for hand in finder._under_other_pile([a, strip], 1.0)] == ["L", "L"]
    left, _ = np.asarray(view.calibration.layout.zone("L").polygon).min(0)
    edge = Hand("B", mask, ("B4",), (float(left) - 1.0, 27.0), (24.0, 65.0), None, covered={("A", "L"): 48})
    assert [hand.grip_zone for hand in finder._under_other_pile([a, edge], 1.0)] == ["L", "L"]
    away = replace(edge, tip=(float(left) - 4.0, 27.0))
    assert [hand.grip_zone for hand in finder._under_other_pile([a, away], 1.0)] == ["L", None]


def _crossing(hand_b_left: int) -> tuple[list[HandSeen], tuple[Hand, ...]]:
    """B's light arm comes down right of L and its hand reaches left across L (its fingers at column
    `hand_b_left`); A's dark arm comes up over L and lies across B's hand, drawn on top. The hands
    reported, and found, in the last frame."""
    calibration, table, view, finder, (x, y) = _watching_l()
    rng = np.random.default_rng(11)
    dark = rng.integers(30, 110, (300, 400, 3), dtype=np.uint8)
    light = rng.integers(160, 240, (300, 400, 3), dtype=np.uint8)

    b_arm, b_hand = (slice(0, y + 12), slice(x + 20, x + 44)), (slice(y, y + 12), slice(hand_b_left, x + 44))
    a_arm = (slice(y - 30, 300), slice(x - 12, x + 12))
    frames = []
    for _ in range(3):  # each arm alone first (its colours learned), away from the piles
        frames += [[((slice(0, 40), b_arm[1]), light)], [((slice(260, 300), a_arm[1]), dark)]]
    frames += [[(b_arm, light), (b_hand, light)]] * 4  # B rests on L
    frames += [[(b_arm, light), (b_hand, light), (a_arm, dark)]] * 6  # A's hand over it, resting there too
    hands: tuple[HandSeen, ...] = ()
    for i, parts in enumerate(frames, start=1):
        frame = table.copy()
        for part, texture in parts:
            frame[part] = texture[part]
        hands = finder.update(view.warp(frame), i / 30, i)
    return list(hands), finder.hands


def test_a_piece_of_one_arm_s_colours_cut_off_by_the_other_hand_on_the_pile_shows_that_arm_beneath() -> None:
    x = int(_watching_l()[4][0])
    reported, found = _crossing(hand_b_left=x - 40)  # B's fingers show left of A's arm, cut off from B's arm by it
    by_side = {hand.side: hand for hand in reported}
    assert "L" in by_side["A"].contact and "L" in by_side["B"].contact
    assert by_side["B"].beneath == ("A",) and by_side["A"].beneath == ()
    assert {hand.side: hand.beneath for hand in found} == {"A": (), "B": ("A",)}
    reported, found = _crossing(hand_b_left=x - 10)  # B's fingers end under A's arm: nothing shows which lies beneath
    assert all(hand.beneath == () for hand in reported) and all(hand.beneath == () for hand in found)
