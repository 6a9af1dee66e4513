"""Card codes, adjacency and colours, as RULES.md and INTERFACES.md define them."""

import pytest

from referee.cards import (
    ALL_CARDS,
    Card,
    card_from_index,
    full_deck,
    is_adjacent,
    parse_card,
    parse_code,
    same_colour,
)
from referee.errors import BadCardCode, RefereeError


def test_codes_are_rank_then_suit() -> None:
    assert parse_card("AS").rank == 1 and parse_card("AS").suit == "S"
    assert parse_card("10H").rank == 10 and parse_card("10H").code == "10H"
    assert parse_card("QD").code == "QD"
    assert parse_card("KC").rank == 13


def test_codes_are_read_case_insensitively_and_written_canonically() -> None:
    assert parse_card("qd") is parse_card("QD")
    assert parse_card(" 10h ").code == "10H"


def test_joker_is_jk() -> None:
    joker = parse_card("JK")
    assert joker.is_joker and joker.code == "JK" and str(joker) == "joker"


def test_back_is_a_face_down_card_not_a_named_card() -> None:
    assert parse_code("back") is None
    with pytest.raises(BadCardCode, match="face-down"):
        parse_card("back")


@pytest.mark.parametrize("bad", ["", "1", "11H", "ZS", "AX", "10", "A S", "AS1", "♠A"])
def test_bad_card_code_is_a_clear_error(bad: str) -> None:
    with pytest.raises(BadCardCode, match="not a card code"):
        parse_card(bad)


def test_bad_card_code_is_a_referee_error() -> None:
    with pytest.raises(RefereeError):
        parse_card(42)  # type: ignore[arg-type]


def test_cards_are_interned_and_immutable() -> None:
    assert parse_card("7C") is Card(7, "C")
    with pytest.raises(AttributeError):
        parse_card("7C").rank = 8  # type: ignore[misc]


def test_a_deck_has_52_different_cards() -> None:
    assert len(full_deck()) == 52 == len(set(ALL_CARDS))
    assert [card_from_index(c.index) for c in ALL_CARDS] == list(ALL_CARDS)


def test_adjacent_ranks_are_one_apart_suits_ignored() -> None:
    assert is_adjacent(parse_card("7C"), parse_card("8H"))
    assert is_adjacent(parse_card("7C"), parse_card("6C"))
    assert not is_adjacent(parse_card("7C"), parse_card("9C"))


def test_ace_is_next_to_king_and_two() -> None:
    ace = parse_card("AH")
    assert is_adjacent(ace, parse_card("KS")) and is_adjacent(parse_card("KS"), ace)
    assert is_adjacent(ace, parse_card("2D")) and is_adjacent(parse_card("2D"), ace)


def test_equal_ranks_are_never_adjacent() -> None:
    assert not any(is_adjacent(a, b) for a in ALL_CARDS for b in ALL_CARDS if a.rank == b.rank)


def test_king_is_not_next_to_two() -> None:
    assert not is_adjacent(parse_card("KS"), parse_card("2S"))


def test_joker_is_next_to_nothing() -> None:
    assert not any(is_adjacent(parse_card("JK"), c) for c in ALL_CARDS)


def test_hearts_and_diamonds_are_red_spades_and_clubs_black() -> None:
    assert parse_card("5H").red and parse_card("5D").red
    assert not parse_card("5S").red and not parse_card("5C").red
    assert same_colour(parse_card("5H"), parse_card("9D"))
    assert not same_colour(parse_card("5H"), parse_card("9S"))


def test_cards_read_as_players_write_them() -> None:
    assert str(parse_card("7C")) == "7♣" and str(parse_card("10H")) == "10♥"
    assert repr(parse_card("JD")) == "Card('JD')"
