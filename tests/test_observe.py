"""Frames to observations: zones read only when they changed and settled, held under hands, unsure readings read again."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from referee.observations import OCCLUDED, ZoneReading
from referee.vision.calibrate import Calibration, calibrate_manual
from referee.vision.detections import DetectedCard, Detections
from referee.vision.observe import BadObserveConfig, DetectorReader, ObserveConfig, Observer
from referee.vision.zones import CardSeen

SIZE = (400, 300)


class ScriptedReader:
    """Says what each zone shows (a card code per zone, else `empty`), logging every call."""

    def __init__(self, shows: dict[str, ZoneReading] | None = None) -> None:
        self.shows = dict(shows or {})
        self.calls: list[tuple[str, ...]] = []

    def read(self, frame: np.ndarray, calibration: Calibration, zones: list[str]) -> dict[str, ZoneReading]:
        self.calls.append(tuple(zones))
        return {z: self.shows.get(z, ZoneReading("empty")) for z in zones}

    def table_cards(self, frame: np.ndarray, calibration: Calibration) -> list[CardSeen]:
        return []


def _setup() -> tuple[Calibration, np.ndarray, ScriptedReader, Observer]:
    width, height = SIZE
    calibration = calibrate_manual(SIZE, [(0, 0), (width, 0), (width, height), (0, height)], 80.0, 60.0)
    table = np.full((height, width, 3), 150, np.uint8)
    reader = ScriptedReader()
    return calibration, table, reader, Observer(calibration, reader)


def _card(image: np.ndarray, calibration: Calibration, zone: str) -> np.ndarray:
    out = image.copy()
    x, y = calibration.to_image(np.array(calibration.layout.zone(zone).centre))
    cv2.rectangle(out, (int(x) - 15, int(y) - 22), (int(x) + 15, int(y) + 22), (245, 245, 245), -1)
    cv2.putText(out, "7C", (int(x) - 12, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    return out


def test_every_zone_is_read_once_when_still_then_only_a_zone_that_changed() -> None:
    calibration, table, reader, observer = _setup()
    observed = [observer.observe(table, i / 30, i) for i in range(4)]
    # read once still (frame 1), and again to agree (frame 2)
    assert len(reader.calls) == 2 and set(reader.calls[0]) == set(reader.calls[1]) == set(observer.view.zones)
    assert observed[0].zones == {} and observed[1].zones["L"] == ZoneReading("empty") == observed[-1].zones["L"]
    reader.shows["L"] = ZoneReading("7C", 0.95)
    with_card = _card(table, calibration, "L")
    observed = [observer.observe(with_card, i / 30, i) for i in range(4, 10)]
    assert reader.calls[2:] == [("L",), ("L",)]  # once the card lay still, twice to agree
    assert "L" not in observed[0].zones  # changed, not read yet: left out
    assert observed[1].zones["L"] == ZoneReading("7C", 0.95) == observed[-1].zones["L"]
    assert observed[0].zones["R"] == ZoneReading("empty")  # the others keep their readings


def _hand_over(table: np.ndarray, calibration: Calibration, zone: str) -> np.ndarray:
    """A card on `zone` with a hand over it, its arm reaching in from the bottom of the frame (A's side)."""
    x, y = calibration.to_image(np.array(calibration.layout.zone(zone).centre))
    hand = _card(table, calibration, zone)
    cv2.rectangle(hand, (int(x) - 25, int(y) - 20), (int(x) + 25, SIZE[1] - 1), (50, 90, 160), -1)
    return hand


def test_a_zone_under_a_hand_is_occluded_and_read_when_the_hand_has_gone() -> None:
    calibration, table, reader, observer = _setup()
    for i in range(4):
        observer.observe(table, i / 30, i)
    hand = _hand_over(table, calibration, "L")
    covered = [observer.observe(hand, i / 30, i) for i in range(4, 8)]
    assert all(obs.zones["L"].seen == OCCLUDED for obs in covered[1:])
    assert [h.side for h in covered[-1].hands] == ["A"]
    reader.shows["L"] = ZoneReading("7C")
    after = [observer.observe(_card(table, calibration, "L"), i / 30, i) for i in range(8, 14)]
    assert after[-1].zones["L"] == ZoneReading("7C") and after[-1].hands == ()
    assert reader.calls[-1] == ("L",)


def test_a_zone_an_arm_lies_partly_over_is_read_once_the_part_the_arm_left_is_still() -> None:
    calibration, table, reader, observer = _setup()
    for i in range(4):
        observer.observe(table, i / 30, i)
    reader.shows["L"] = ZoneReading("7C")
    x, y = (int(v) for v in calibration.to_image(np.array(calibration.layout.zone("L").centre)))
    seen = []
    for i in range(4, 10):  # a card turned up; its arm leaving, its edge still moving over the zone's side
        frame = _card(table, calibration, "L")
        cv2.rectangle(frame, (x + 21 + i % 2, y - 25), (x + 28, SIZE[1] - 1), (50, 90, 160), -1)
        obs = observer.observe(frame, i / 30, i)
        assert "L" not in {zone for hand in obs.hands for zone in hand.over}
        seen.append(obs.zones.get("L"))
    assert seen[0] is None and ZoneReading("7C") in seen


def test_a_zone_an_arm_lies_still_over_the_side_of_is_read_as_a_whole() -> None:
    calibration, table, reader, observer = _setup()
    for i in range(4):
        observer.observe(table, i / 30, i)
    x, y = (int(v) for v in calibration.to_image(np.array(calibration.layout.zone("L").centre)))
    seen = []
    for i in range(4, 6):  # the arm's edge lies still over the zone's side; only its part beyond the zone moves
        frame = table.copy()
        cv2.rectangle(frame, (x + 21, y - 25), (x + 28, SIZE[1] - 1), (50, 90, 160), -1)
        cv2.rectangle(frame, (x + 21, y + 45), (x + 30 + 2 * (i % 2), SIZE[1] - 1), (50, 90, 160), -1)
        obs = observer.observe(frame, i / 30, i)
        assert "L" not in {zone for hand in obs.hands for zone in hand.over}
        seen.append(obs.zones.get("L"))
    assert seen[0] is None and seen[1] is not None and seen[1].seen == "empty"  # read as without the arm rule


@pytest.mark.parametrize("zone", ["L", "A3"])  # a card laid on a spit pile, a card turned up in a stock place
def test_a_pile_a_hand_leaves_is_read_in_that_frame_when_only_what_the_hand_held_changed(zone: str) -> None:
    calibration, table, reader, observer = _setup()
    for i in range(4):
        observer.observe(table, i / 30, i)
    hand = _hand_over(table, calibration, zone)
    for i in range(4, 8):
        observer.observe(hand, i / 30, i)
    reader.shows[zone] = ZoneReading("7C")
    left = observer.observe(_card(table, calibration, zone), 8 / 30, 8)  # the hand gone: the card it hid shows
    assert left.hands == () and left.zones[zone] == ZoneReading("7C")


def _left_with_the_arm_s_edge_over(observer: Observer, table: np.ndarray, calibration: Calibration,
                                   reader: ScriptedReader) -> ZoneReading | None:
    """A hand lays a card on L and leaves it, the edge of its arm still over the pile's side in the
    frame it leaves (over less than a tenth of the pile); what L reads in that frame."""
    for i in range(4):
        observer.observe(table, i / 30, i)
    hand = _hand_over(table, calibration, "L")
    for i in range(4, 8):
        observer.observe(hand, i / 30, i)
    reader.shows["L"] = ZoneReading("7C")
    x, y = (int(v) for v in calibration.to_image(np.array(calibration.layout.zone("L").centre)))
    frame = _card(table, calibration, "L")
    cv2.rectangle(frame, (x + 22, y - 20), (x + 25, SIZE[1] - 1), (50, 90, 160), -1)
    left = observer.observe(frame, 8 / 30, 8)
    assert "L" not in {zone for hand in left.hands for zone in hand.over}
    return left.zones.get("L")


def test_a_spit_pile_a_hand_leaves_is_read_in_that_frame_when_only_what_its_arm_held_or_its_edge_still_holds_changed() -> None:
    calibration, table, reader, observer = _setup()
    assert _left_with_the_arm_s_edge_over(observer, table, calibration, reader) == ZoneReading("7C")


def test_a_spit_pile_a_hand_leaves_waits_while_its_arm_lies_over_more_than_its_edge() -> None:
    calibration, table, reader, _ = _setup()
    observer = Observer(calibration, reader, config=ObserveConfig(edge_fraction=0.02))  # the arm's edge: over more
    assert _left_with_the_arm_s_edge_over(observer, table, calibration, reader) is None


def test_a_misread_does_not_stand() -> None:
    calibration, table, reader, observer = _setup()
    answers = iter([ZoneReading("8C", 0.9), ZoneReading("7C", 0.9), ZoneReading("7C", 0.9)])
    reader.read = lambda frame, cal, zones: {z: next(answers) if z == "L" else ZoneReading("empty") for z in zones}
    with_card = _card(table, calibration, "L")
    seen = [observer.observe(with_card, i / 30, i).zones.get("L") for i in range(6)]
    assert [r.seen if r else None for r in seen] == [None, "8C", "7C", "7C", "7C", "7C"]


def test_a_read_the_zone_s_look_contradicts_is_unsure() -> None:
    calibration, table, reader, observer = _setup()
    reader.shows["L"] = ZoneReading("7C", 0.9)  # on bare table
    for i in range(3):
        obs = observer.observe(_card(table, calibration, "R"), i / 30, i)  # R: a card the reader calls empty
    assert obs.zones["L"] == ZoneReading("7C", 0.0) and obs.zones["R"] == ZoneReading("empty", 0.0)
    assert obs.zones["A1"] == ZoneReading("empty")


def test_a_cream_card_on_an_unevenly_lit_light_table_is_seen_as_a_card() -> None:
    calibration, _, reader, observer = _setup()
    width, height = SIZE
    shade = np.linspace(205, 150, height).astype(np.uint8)  # light far away, darker near player A
    table = np.repeat(np.repeat(shade[:, None, None], width, axis=1), 3, axis=2)
    x, y = calibration.to_image(np.array(calibration.layout.zone("A3").centre))
    near = int(table[int(y), int(x), 0])
    with_card = table.copy()  # a cream card only a little lighter than the table around it
    cv2.rectangle(with_card, (int(x) - 15, int(y) - 22), (int(x) + 15, int(y) + 22), (near + 28,) * 3, -1)
    cv2.putText(with_card, "7C", (int(x) - 12, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    assert abs(near + 28 - int(np.median(table))) * 3 < 80  # the whole table's colour would not tell it from table
    reader.shows["A3"] = ZoneReading("7C", 0.9)
    for i in range(3):
        obs = observer.observe(with_card, i / 30, i)
    assert obs.zones["A3"] == ZoneReading("7C", 0.9)
    assert obs.zones["B3"] == ZoneReading("empty")  # bare table, darker or lighter, is still table


def _steep_light(height: int, width: int) -> np.ndarray:
    """A light table lit far more strongly at the far side than near player A: across a zone and
    the ring around it the grey level changes by over 40 (per channel)."""
    shade = np.linspace(240, 80, height).astype(np.uint8)
    return np.repeat(np.repeat(shade[:, None, None], width, axis=1), 3, axis=2)


def test_the_bare_table_follows_the_light_across_a_zone() -> None:
    calibration, _, reader, observer = _setup()
    width, height = SIZE
    table = _steep_light(height, width)
    x, y = calibration.to_image(np.array(calibration.layout.zone("A3").centre))
    near = int(table[int(y), int(x), 0])
    with_card = table.copy()  # a cream card a little lighter than the table where it lies
    cv2.rectangle(with_card, (int(x) - 15, int(y) - 22), (int(x) + 15, int(y) + 22), (near + 28,) * 3, -1)
    cv2.putText(with_card, "7C", (int(x) - 12, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1)
    reader.shows["A3"] = ZoneReading("7C", 0.9)
    reader.shows["L"] = ZoneReading("7C", 0.9)  # a misread of a bare place
    for i in range(3):
        obs = observer.observe(with_card, i / 30, i)
    assert obs.zones["A3"] == ZoneReading("7C", 0.9)  # the table's colour in the middle of the ring is not the card's
    assert obs.zones["B3"] == ZoneReading("empty")
    assert obs.zones["L"] == ZoneReading("7C", 0.0)


def test_a_neighbour_card_s_edge_in_the_ring_leaves_the_bare_table_as_it_is() -> None:
    calibration, table, reader, observer = _setup()
    x, y = calibration.to_image(np.array(calibration.layout.zone("B3").centre))
    first = table.copy()  # a card's edge along one side of B3's ring, in the first view
    cv2.rectangle(first, (int(x) + 29, int(y) - 20), (int(x) + 31, int(y) + 20), (245, 245, 245), -1)
    observer.observe(first, 0.0, 0)
    bare, spread = observer._bare["B3"]
    assert np.abs(bare.astype(int) - 150).max() <= 1 and spread <= 1


def test_a_back_on_grained_wood_between_card_edges_in_its_ring_is_seen_as_a_card() -> None:
    calibration, _, reader, observer = _setup()
    width, height = SIZE
    grain = np.random.default_rng(1).normal(0, 12, (1, width, 1)).repeat(height, axis=0)
    table = np.clip(np.array([46, 82, 126]) + grain, 0, 255).astype(np.uint8)  # wood, grained across
    x, y = calibration.to_image(np.array(calibration.layout.zone("B3").centre))
    x, y = int(x), int(y)
    first = table.copy()  # the pile's edges overhanging its box on three sides: a fifth of the ring
    cv2.rectangle(first, (x - 24, y - 35), (x + 24, y + 35), (235, 235, 235), -1)
    observer.observe(first, 0.0, 0)
    with_back = table.copy()
    cv2.rectangle(with_back, (x - 16, y - 24), (x + 16, y + 24), (40, 30, 170), -1)  # a red back
    reader.shows["B3"] = ZoneReading("back", 0.9)
    for i in range(1, 4):
        obs = observer.observe(with_back, i / 30, i)
    assert obs.zones["B3"] == ZoneReading("back", 0.9)
    assert obs.zones["A3"] == ZoneReading("empty")  # the grain alone is table


def test_an_unsure_reading_is_read_again() -> None:
    calibration, table, reader, observer = _setup()
    reader.shows["R"] = ZoneReading("9H", 0.3)
    for i in range(4):
        observer.observe(table, i / 30, i)
    assert [("R" in call) for call in reader.calls] == [True, True, True]  # the unsure zone again, alone
    assert reader.calls[2] == ("R",)


def test_settings_are_checked() -> None:
    with pytest.raises(BadObserveConfig):
        ObserveConfig(change_fraction=0)
    with pytest.raises(BadObserveConfig):
        ObserveConfig(settle_frames=0)
    with pytest.raises(BadObserveConfig):
        ObserveConfig(visible_fraction=0)
    with pytest.raises(BadObserveConfig):
        ObserveConfig(edge_fraction=1)


class BrightBlobDetector:
    """A stand-in for the card detector: every bright blob is a `7C` (the reader's geometry is under test)."""

    def __init__(self) -> None:
        self.images: list[tuple[int, int]] = []

    def detect(self, image: np.ndarray) -> Detections:
        self.images.append(image.shape[:2])
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        contours, _ = cv2.findContours((grey > 220).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cards = []
        for contour in contours:
            if cv2.contourArea(contour) < 200:
                continue
            quad = cv2.boxPoints(cv2.minAreaRect(contour))
            x, y, w, h = cv2.boundingRect(contour)
            cards.append(DetectedCard("7C", 0.9, (float(x), float(y), float(x + w), float(y + h)),
                                      tuple((float(px), float(py)) for px, py in quad)))  # type: ignore[arg-type]
        return Detections(tuple(cards), image.shape[1], image.shape[0])


def test_the_detector_reader_reads_zones_in_one_pass_and_finds_the_dealt_cards() -> None:
    calibration, table, _, _ = _setup()
    frame = _card(_card(table, calibration, "L"), calibration, "A3")
    stub = BrightBlobDetector()
    reader = DetectorReader(stub)  # type: ignore[arg-type]
    assert reader.read(frame, calibration, ["L", "A3", "R", "B2"]) == {
        "L": ZoneReading("7C", 0.9), "A3": ZoneReading("7C", 0.9), "R": ZoneReading("empty", 0.9),
        "B2": ZoneReading("empty", 0.9)}
    assert len(stub.images) == 1  # four zones, one pass
    cards = reader.table_cards(frame, calibration)
    centres = sorted((round(c.x), round(c.y)) for c in cards)
    expected = sorted((round(calibration.layout.zone(z).centre[0]), round(calibration.layout.zone(z).centre[1]))
                      for z in ("L", "A3"))
    assert len(cards) == 2 and all(abs(a - b) <= 1 for p, q in zip(centres, expected) for a, b in zip(p, q))
    assert all(c.height_cm > c.width_cm for c in cards)


class FaintIndexDetector(BrightBlobDetector):
    """Finds the cards as `BrightBlobDetector` does but reads every index with confidence 0.05."""

    def detect(self, image: np.ndarray) -> Detections:
        found = super().detect(image)
        return Detections(tuple(replace(c, confidence=0.05) for c in found), found.width, found.height)


def test_a_card_whose_index_cannot_be_read_is_unsure_never_empty() -> None:
    calibration, table, _, _ = _setup()
    frame = _card(table, calibration, "L")
    read = DetectorReader(FaintIndexDetector()).read(frame, calibration, ["L", "R"])  # type: ignore[arg-type]
    assert read["L"] == ZoneReading("7C", 0.05)  # below the observer's and tracker's 0.3: read again, state held
    assert read["R"] == ZoneReading("empty", 0.9)


@pytest.mark.parametrize("resting", [True, False])
def test_a_stock_place_its_owner_took_the_face_up_card_from_is_turned_over_where_touched_again(resting: bool) -> None:
    calibration, table, reader, observer = _setup()
    reader.shows["A3"] = ZoneReading("7C")
    dealt = _card(table, calibration, "A3")
    for i in range(4):
        observer.observe(dealt, i / 30, i)
    x, y = (int(v) for v in calibration.to_image(np.array(calibration.layout.zone("A3").centre)))
    far = int(calibration.to_image(np.array(calibration.layout.zone("L").centre))[1])
    turned = dealt.copy()
    cv2.rectangle(turned, (x - 15, y - 22), (x + 15, y + 22), (40, 40, 150), -1)  # the face-down card under it
    sleeve = np.random.default_rng(0).integers(30, 110, (300, 44, 3), dtype=np.uint8)
    flipping = np.random.default_rng(1)
    # A's hand takes A3's card, resting on it or never still (no contact seen), reaches L (its arm
    # over A3 all along), comes back, stops on the face-down card, turns it over in its fingers
    # (stirring) and rests
    take = [(dealt, y, 0)] * 5 if resting else [(dealt, y - 6 * k, 0) for k in range(5)]
    steps = take + [(turned, far, 0)] * 3 + [(turned, y, 0)] * 2 + [(turned, y, 20)] * 4 + [(turned, y, 0)] * 3
    contacts = []
    for i, (under, top, flip) in enumerate(steps, start=4):
        frame = under.copy()
        frame[top:300, x - 22:x + 22] = sleeve[: 300 - top]
        if flip:
            frame[top:top + flip, x - 22:x + 22] = flipping.integers(0, 255, (flip, 44, 3), dtype=np.uint8)
        obs = observer.observe(frame, i / 30, i)
        contacts.append({zone: t for hand in obs.hands for zone, t in hand.contact.items()})
    assert ("A3" in contacts[4]) == resting  # the card taken
    assert contacts[5:8] == [{}, {}, {}]
    assert contacts[-1] == {"A3": pytest.approx(13 / 30)}  # from when it stopped on the card, as on one read face-down
