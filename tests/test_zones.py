"""Zones of the table plane: the default layout, one fitted from a deal, point lookup and layout files."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee.vision.zones import CardSeen, Layout, LayoutError, UnknownZone, default_layout, fit_layout

ROOT = Path(__file__).resolve().parents[1]


def centre(layout: Layout, name: str) -> tuple[float, float]:
    return layout.zone(name).centre


def deal(layout: Layout, rng: random.Random, jitter_cm: float = 1.5, turn_deg: float = 12.0,
         shift: tuple[float, float] = (0.0, 0.0)) -> dict[str, CardSeen]:
    """A messy deal: a card near each default place, moved and turned a little, the whole deal shifted."""
    return {z.name: CardSeen(z.centre[0] + shift[0] + rng.uniform(-jitter_cm, jitter_cm),
                             z.centre[1] + shift[1] + rng.uniform(-jitter_cm, jitter_cm),
                             angle_deg=rng.uniform(-turn_deg, turn_deg)) for z in layout.piles}


def test_default_layout_has_stock_rows_by_the_players_and_spit_piles_in_the_middle() -> None:
    layout = default_layout(80, 60)
    stock = [f"{player}{k}" for player in "AB" for k in range(1, 6)]
    assert [z.name for z in layout.piles] == [*stock, "L", "R"]
    a = [centre(layout, f"A{k}") for k in range(1, 6)]
    b = [centre(layout, f"B{k}") for k in range(1, 6)]
    assert [x for x, _ in a] == sorted(x for x, _ in a)  # A's left to right
    assert [x for x, _ in b] == sorted((x for x, _ in b), reverse=True)  # B1 on A's right
    assert all(y < 15 for _, y in a) and all(y > 45 for _, y in b)
    assert centre(layout, "L")[0] < 40 < centre(layout, "R")[0] and centre(layout, "L")[1] == 30
    assert layout.players == ("A", "B") and layout.source == "default"
    assert layout.zone("B3").player == "B" and layout.zone("L").player is None and layout.zone("R").is_spit
    with pytest.raises(UnknownZone, match="no zone 'A6'"):
        layout.zone("A6")


def test_default_layout_takes_the_number_of_players_and_stock_places() -> None:
    four = default_layout(80, 60, stock_places=4)
    assert {z.name for z in four.piles} == {"A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "L", "R"}
    six = default_layout(100, 60, stock_places=6)
    assert six.zone("A6").centre[0] > six.zone("A5").centre[0]
    many = default_layout(110, 110, players=4, stock_places=4)
    assert many.players == ("A", "B", "C", "D")
    assert {"S1", "S2", "S3", "S4", "C4", "D1"} <= {z.name for z in many.piles}
    assert many.zone("C1").centre[1] > many.zone("C4").centre[1]  # C sits at A's left, facing A's right
    assert many.side_of((2, 55)) == "C" and many.side_of((108, 55)) == "D"


@pytest.mark.parametrize("width, depth, players, places", [(40, 30, 2, 5), (80, 60, 5, 5), (80, 60, 2, 0)])
def test_a_layout_that_cannot_be_laid_out_is_refused(width: float, depth: float, players: int, places: int) -> None:
    with pytest.raises(LayoutError):
        default_layout(width, depth, players=players, stock_places=places)


def test_a_table_point_is_found_in_its_zone_and_side() -> None:
    layout = default_layout(80, 60)
    for zone in layout.piles:
        assert layout.locate(zone.centre) == zone.name
    assert layout.locate((40, 30)) is None  # between L and R
    assert layout.locate((-5, 30)) is None
    assert layout.side_of((70, 5)) == "A" and layout.side_of((10, 55)) == "B" and layout.side_of((90, 5)) is None


@pytest.mark.parametrize("seed", range(5))
def test_zones_are_fitted_from_dealt_cards(seed: int) -> None:
    rng = random.Random(seed)
    standard = default_layout(80, 60)
    cards = deal(standard, rng, shift=(rng.uniform(-4, 4), rng.uniform(-3, 3)))
    fitted = fit_layout(list(cards.values()), 80, 60)
    assert fitted.source == "fitted" and fitted.predicted == ()
    for name, card in cards.items():
        assert fitted.locate((card.x, card.y)) == name
        assert fitted.zone(name).centre == pytest.approx((card.x, card.y), abs=1e-3)


def test_fitted_zones_hold_cards_dealt_far_from_the_standard_places() -> None:
    standard = default_layout(80, 60)
    cards = {}
    for k in range(1, 6):  # rows dealt wide and deep into the table
        cards[f"A{k}"] = CardSeen(10 + (k - 1) * 14.5, 16)
        cards[f"B{k}"] = CardSeen(70 - (k - 1) * 14.5, 44)
    cards["L"], cards["R"] = CardSeen(28, 30), CardSeen(52, 31)
    fitted = fit_layout(list(cards.values()), 80, 60)
    for name, card in cards.items():
        assert fitted.locate((card.x, card.y)) == name
        assert standard.locate((card.x, card.y)) != name


@pytest.mark.parametrize("missing", ["A1", "A3", "A5", "B2", "R"])
def test_a_missing_card_is_predicted_from_the_others(missing: str) -> None:
    standard = default_layout(80, 60)
    cards = deal(standard, random.Random(7), jitter_cm=0.8, turn_deg=5, shift=(2.0, 1.0))
    truth = cards.pop(missing)
    fitted = fit_layout(list(cards.values()), 80, 60)
    assert fitted.predicted == (missing,)
    assert fitted.locate((truth.x, truth.y)) == missing
    for name, card in cards.items():
        assert fitted.locate((card.x, card.y)) == name


def test_a_stray_card_and_a_card_seen_twice_do_not_shift_the_places() -> None:
    standard = default_layout(80, 60)
    cards = deal(standard, random.Random(3), jitter_cm=0.8)
    a2 = cards["A2"]
    extra = [CardSeen(a2.x + 0.6, a2.y - 0.4), CardSeen(centre(standard, "A5")[0] + 12, centre(standard, "A5")[1])]
    fitted = fit_layout([*cards.values(), *extra], 80, 60)
    assert fitted.predicted == ()
    for name, card in cards.items():
        assert fitted.locate((card.x, card.y)) == name


def test_turned_cards_get_zones_that_hold_them() -> None:
    standard = default_layout(80, 60)
    cards = deal(standard, random.Random(1), jitter_cm=0.5, turn_deg=0)
    cards["L"] = CardSeen(cards["L"].x, cards["L"].y, angle_deg=90)
    fitted = fit_layout(list(cards.values()), 80, 60)
    xs = [x for x, _ in fitted.zone("L").polygon]
    assert max(xs) - min(xs) >= 8.8


def test_fitting_a_deal_of_more_players_uses_their_rows() -> None:
    standard = default_layout(110, 110, players=4, stock_places=4)
    cards = deal(standard, random.Random(2), jitter_cm=1.0)
    fitted = fit_layout(list(cards.values()), 110, 110, players=4, stock_places=4)
    for name, card in cards.items():
        assert fitted.locate((card.x, card.y)) == name


def test_layout_round_trips_through_json(tmp_path: Path) -> None:
    layout = fit_layout(list(deal(default_layout(80, 60), random.Random(0)).values())[:-1], 80, 60)
    path = tmp_path / "layout.json"
    layout.save(path)
    loaded = Layout.load(path)
    assert loaded.source == "file" and loaded.predicted == layout.predicted
    assert loaded.piles == layout.piles and loaded.sides == layout.sides


@pytest.mark.parametrize("change, message", [
    (lambda d: d["piles"].update(A1=[[0, 0], [1, 1]]), "A1: a polygon needs at least 3"),
    (lambda d: d["piles"].update(X9=[[0, 0], [1, 0], [0, 1]]), "'X9' is neither"),
    (lambda d: d.update(width_cm=-3), "width_cm must be a positive number"),
    (lambda d: d.pop("sides"), "a layout needs sides"),
])
def test_a_bad_layout_file_is_refused_with_what_is_wrong(tmp_path: Path, change, message) -> None:
    data = default_layout(80, 60).to_dict()
    change(data)
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LayoutError, match=message):
        Layout.load(path)


def test_shipped_layout_file_is_the_default_two_player_layout() -> None:
    shipped = Layout.load(ROOT / "calibration" / "layouts" / "classic-80x60.json")
    standard = default_layout(80, 60)
    assert shipped.piles == standard.piles and shipped.sides == standard.sides


def test_a_game_with_one_play_pile_has_it_in_the_middle() -> None:
    layout = default_layout(80, 60, middle=("P",))
    assert layout.zone("P").centre == pytest.approx((40, 30)) and layout.zone("P").is_spit
    assert "L" not in {z.name for z in layout.piles}
    with pytest.raises(LayoutError, match="middle piles"):
        default_layout(80, 60, middle=("A1",))
