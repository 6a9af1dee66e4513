"""The Spit referee's rule-set check, settings, timing constants and call reasons."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from referee.errors import RefereeError
from referee.observations import HandSeen
from referee.rules import get_rules
from referee.rules.spit import SpitRules

TOO_CLOSE: Final = "too close to call"
SLAP_FALLBACK: Final = "the first player out chooses (as with free choice)"
"""Who takes a pile both hands reached within one frame interval where the camera cannot tell
whose hand is underneath: the player who emptied their stock first has the choice."""
UNDERNEATH: Final = "too close to time; the hand seen underneath got there first"
"""The verdict on a pile both hands reached within half a frame interval where the camera saw one
hand lying under the other (RULES.md: the first hand there, the one underneath, takes it)."""
BENEATH: Final = "the hand seen lying beneath the other arm on the pile got there first"
"""The verdict on a pile both hands slapped where, once both rested there, the frames saw one hand lying
beneath the other arm (`beneath`): it takes the pile whatever its contact time (a hand hovering over the
pile before it slapped is found at rest there early, and its contact dated too early)."""
BENEATH_DELAY_FRAMES: Final = 2
"""The frames seen after the one in which the later of a slap's two contacts on one pile was reported
before its `beneath` votes are counted (the arm on top settles over the other hand)."""
BENEATH_FRAMES: Final = 8
"""How many frames' `beneath` votes a slap on one pile waits for (fewer where a hand leaves the pile)."""
HANDS_KEPT_FRAMES: Final = 90
"""The referee keeps the hands of this many last frames (3 s at 30 fps): a slap's `beneath` votes are read
from them when its deal's end is judged, up to a second or two after the slap (a last stock card laid unseen
waits `TIE_WAIT_S`)."""
BENEATH_SHARE: Final = 0.5
"""The least share of those frames that must see a hand beneath the other arm, none seeing the other
beneath, for it to take the pile."""
BENEATH_MARGIN_S: Final = 0.2
"""The most two slaps' contacts on one pile may lie apart for the hand seen beneath to take it against
their order: a hand that hovered over the pile before it slapped is found at rest there up to about six
frames early (the slap bench, seeds 5001-5024); contacts further apart are ordered by their times."""


def too_close(pile_a: str, t_a: float, pile_b: str, t_b: float, frame_interval: float) -> bool:
    """Two slaps on one pile whose first contacts lie less than half a frame interval apart: no
    camera orders them (contacts are dated inside the frame interval)."""
    return pile_a == pile_b and abs(t_b - t_a) < 0.5 * frame_interval


def underneath(a: str, under_a: Collection[str], b: str, under_b: Collection[str]) -> str | None:
    """Of two hands on one pile too close to call by their contact times, the one seen lying under
    the other (`under_a`: the sides whose hands lay over `a`'s, `HandSeen.under`), else None."""
    if b in under_a and a not in under_b:
        return a
    if a in under_b and b not in under_a:
        return b
    return None


def beneath_votes(frames: Iterable[tuple[int, Sequence[HandSeen]]], pile: str, sides: Collection[str],
                  reported: int) -> tuple[list[tuple[str, ...]], bool]:
    """The `beneath` votes on a slap both `sides` made on `pile`, the later contact first reported in frame
    `reported`: of the hands seen per frame (frame index, in order), from `BENEATH_DELAY_FRAMES` after it for
    `BENEATH_FRAMES` at most, the sides whose hand rests on the pile seen beneath the other arm
    (`HandSeen.beneath`); and whether the window is closed (a hand no longer rests there: what was seen until
    then decides; or its last frame has been seen).

    >>> rest = lambda beneath: (HandSeen("A", ("L",), {"L": 1.0}), HandSeen("B", ("L",), {"L": 1.1}, beneath=beneath))
    >>> beneath_votes([(f, rest(("A",) if f > 12 else ())) for f in range(10, 15)], "L", ("A", "B"), 10)
    ([(), ('B',), ('B',)], False)
    """
    start = reported + BENEATH_DELAY_FRAMES
    votes: list[tuple[str, ...]] = []
    last = reported
    for seen, hands in frames:
        last = max(last, seen)
        if not reported < seen < start + BENEATH_FRAMES:
            continue
        resting = {hand.side: hand for hand in hands if pile in hand.contact}
        if not all(side in resting for side in sides):
            return votes, True
        if seen >= start:
            votes.append(tuple(side for side in sides if resting[side].beneath))
    return votes, last >= start + BENEATH_FRAMES - 1


def lying_beneath(a: str, b: str, votes: Sequence[Collection[str]]) -> str | None:
    """Of two hands slapping one pile, the one the frames after both came to rest there saw lying
    beneath the other's arm: `votes`, per frame (`BENEATH_FRAMES` at most), the sides seen beneath
    then (`HandSeen.beneath` given); a side seen so in at least `BENEATH_SHARE` of the frames, the
    other in none; else None.

    >>> lying_beneath("A", "B", [("B",), (), ("B",), ("B",)]), lying_beneath("A", "B", [("B",), ("A",), ("B",)])
    ('B', None)
    """
    for p, q in ((a, b), (b, a)):
        seen = sum(p in vote for vote in votes)
        if votes and seen >= BENEATH_SHARE * len(votes) and not any(q in vote for vote in votes):
            return p
    return None


def slap_winner(a: str, pile_a: str, t_a: float, under_a: Collection[str],
                b: str, pile_b: str, t_b: float, under_b: Collection[str],
                frame_interval: float, ender: str, lying: str | None = None) -> tuple[str, str | None]:
    """Who takes the pile of a slap from both players' first contacts, and how that was settled:
    `BENEATH` (one pile, contacts at most `BENEATH_MARGIN_S` apart, the hand the frames after saw lying
    beneath the other arm: `lying`, from `beneath`), None (the earlier contact), `UNDERNEATH` (too close to time, the hand seen underneath
    as it was come over) or `TOO_CLOSE` (too close to call: `ender`, who emptied their stock first,
    per `SLAP_FALLBACK`).

    >>> slap_winner("A", "L", 2.00, (), "B", "L", 2.05, (), 1 / 30, ender="B")
    ('A', None)
    >>> slap_winner("A", "L", 2.00, ("B",), "B", "L", 2.01, (), 1 / 30, ender="B")
    ('A', 'too close to time; the hand seen underneath got there first')
    >>> slap_winner("A", "L", 2.00, (), "B", "L", 2.01, (), 1 / 30, ender="B")
    ('B', 'too close to call')
    >>> slap_winner("A", "L", 2.00, (), "B", "L", 2.05, (), 1 / 30, ender="A", lying="B")
    ('B', 'the hand seen lying beneath the other arm on the pile got there first')
    >>> slap_winner("A", "L", 2.00, (), "B", "L", 2.30, (), 1 / 30, ender="A", lying="B")
    ('A', None)
    """
    if lying is not None and pile_a == pile_b and abs(t_b - t_a) <= BENEATH_MARGIN_S + 1e-9:
        return lying, BENEATH
    if not too_close(pile_a, t_a, pile_b, t_b, frame_interval):
        return (a if t_a <= t_b else b), None
    beneath = underneath(a, under_a, b, under_b)
    if beneath is not None:
        return beneath, UNDERNEATH
    return ender, TOO_CLOSE


TOUCH_REACH_S: Final = 1.5
"""A change is dated by a hand's touch at most this long before the new state was first seen."""
LAYOUT_STILL_S: Final = 1.5
"""A layout that does not fit the counts the engine expects is read once no stock place has
changed for this long."""
UNREAD_LAYOUT_S: Final = 0.5
"""A stock place never read while the rest of a new layout has lain still this long, where a card
there is what the deal needs, is taken as dealt with its top not read (a card the reader cannot
make out must not hold up the whole game); its card counts once it is read, without a turn-up."""
RESYNC_S: Final = 2.0
"""The table showing, with every zone settled, what no move explains for this long makes the
referee read its position again from the table."""
MOVES_PER_FRAME: Final = 32
"""The most moves one frame's readings are explained by (a frame shows a handful at most)."""
DOUBT_S: Final = 2.0
"""How long after a doubtful spit card the move the engine found may be made to show it existed."""
SURE_S: Final = 0.5
"""A place under a hand when a spit card landed is taken to have shown then what it shows now
only once it has been settled this long (a change under a hand may be read late)."""
TURN_S: Final = 0.4
"""The longest a hand is seen turning a card over in place before it is at rest on it."""
SPIT_LEAD_S: Final = 0.1
"""A spit card is judged on the engine's position when it touched its pile: a play dated by its
touch more than this after it (a touch is seen a frame or two late; a spit card follows the
stalemate by a player's reaction, a few hundred ms) existed when it landed, so the card was
premature even if nobody can move by the time it is read; a turn-up so dated shows the card lay
face down then."""
SPIT_ROUND_S: Final = 2.0
"""Another player's spit card laid less than this before a spit card (or after it) was laid at the
same stalemate (the players' cards of one spit land up to about 2 s apart)."""
TAKE_BACK_S: Final = 2.5
"""A card refused on a spit pile is taken back by its player within this long (they notice it
within a reaction, at most 1.5 s, and reach back for it); meanwhile their hand touching that pile
is taking it back, even when it lies under a card laid on it since, or was never seen there."""
OTHER_SLAP: Final = "the spit cards laid show that a slap too close to call went the other way"
"""The reason of a `resync` that counts the spit cards as the other verdict of such a slap left them."""
SPIT_LAID: Final = "a player out of spit cards as counted laid one at a stalemate"
"""The reason of a `resync` that gives that player a spit card of the other's (`SpitReferee._spit_card_of`)."""
ALONE: Final = "a stock card was laid on a spit card waiting for the other player's: they hold none"
"""The reason of a `resync` that counts the other player out of spit cards (`SpitReferee._spat_alone`)."""
RECOUNT: Final = "a stock place shows how many cards it holds where the counts were guessed by a re-read"
"""The reason of a `resync` that corrects one stock place's count (`SpitReferee._recounted`)."""
TIE_WAIT_S: Final = 1.0
"""Two cards touching one pile within a frame of each other: the one read on top with no hand over
the pile went second (a hand back over it meanwhile, taking one back, is waited for this long, the
card taken back being the second). A card seen on a pile another player's hand touched just
before with no card judged waits at most as long for that card to be found (its place read without
it), or up to `TAKE_BACK_S` while a stock place of that player's is still under their arm, not read
since their touch; the wait ends with that evidence (`TableMoves._waits_for_rival`, looked at in every frame).
A player's last stock card, laid at a touch, is played there once it has not come back for this long."""
RETURN_MIN_S: Final = 0.1
"""The least time a card takes from its player's hand on a spit pile back to its stock place (0.14 s
at the least from pickup to back on the rendered games 9001-9080): a card read back in its place less
than this after a touch was not on that pile."""
FETCH_S: Final = 0.3
"""The least time one hand takes from laying a card on one spit pile to laying another on the other
pile (it fetches that card from a stock place between: 0.52 s at the least on the rendered games
9001-9040): its contact with the other pile sooner than this lays no card (the hand over both). Nor
does a hand lay a card into a space of its player's and then on a spit pile faster (0.57 s at the least
from the move to the play on the rendered games A1-G, 661 such moves): a touch on a space less than this
before the card touched a pile did not move it there (`TableMoves._space_touched`)."""
TURN_LAY_S: Final = 0.43
"""The least time one hand takes from turning a stock card up to laying a card (that one or another) on a
spit pile or into a space: 0.43 s at the least on the rendered games 9001-9040 and 9601-9780 (3846 turn-ups
followed by a lay), and 0.47 s at the least from the contact the vision dated such a turn by to the touch
the referee dated the next lay by (3274 turn-ups). A contact of a hand with a face-down place that began
less than this before that hand laid a card turned nothing there (`HandTouches._fetching`)."""
LAY_TURN_S: Final = 0.2
"""Less than the least time one hand takes from laying a card (on a spit pile or into a space) to turning a
stock card up: 0.23 s at the least on the rendered games 9001-9040 and 9601-9780 (3981 turn-ups after a lay),
less a frame for the dating of the lay; 0.27 s at the least from the touch the referee dated the lay by to
the contact the vision dated the turn by (but one of 3385). A card turned after a card was moved off its
place was turned this long after that move at the earliest (`HandTouches._turned_after_move`), and a contact
less than this after its hand laid a card turned nothing (`HandTouches._fetching`)."""
TURNS_APART_S: Final = 0.2
"""Less than the least time between two turn-ups by one player: 0.27 s at the least on the rendered games
9001-9040 and 9601-9780 (3541 pairs), less two frames for the dating of the two contacts. A contact of a
hand with a face-down place less than this from the contact that dated a turn-up of another of its
player's places turned nothing there (`HandTouches._turning_elsewhere`)."""
CALLS_MEMORY_S: Final = 30.0
"""How long a touch judged and a call against a player made are remembered (so that none is judged or
made twice): far longer than any stretch a move is judged again in (the touch memory, the re-reads
of the last moves); older ones are forgotten, so what the referee holds does not grow with the game."""
When = tuple[float, int]


class UnsupportedRules(RefereeError):
    """A rule set the camera referee does not watch (yet)."""


def spit_rules(rules: str | SpitRules | Any) -> SpitRules:
    """The Spit rule set the camera-side referee watches; `UnsupportedRules` for the others
    (the five-card hand's hidden hands, more than two players)."""
    if isinstance(rules, str):
        rules = get_rules(rules)
    if not isinstance(rules, SpitRules):
        raise UnsupportedRules(f"the table referee watches Spit rule sets, not {getattr(rules, 'name', rules)!r}")
    if rules.five_card_hand or rules.players != 2:
        raise UnsupportedRules(f"the table referee does not watch {rules.name!r} (hidden hands or more than two players)")
    return rules


@dataclass(frozen=True)
class RefereeConfig:
    """`race_window_s`: two cards on one pile closer than this make a race (the engine's);
    `frame_interval_s`: the time resolution of contacts (one frame); `touch_memory_s`: how long
    a hand's touch is remembered to date a card that lands under it; `settle_frames`: the
    tracker's, so that a card taken back is judged only once the pile it touched has settled."""

    race_window_s: float = 0.5
    frame_interval_s: float = 1 / 30
    touch_memory_s: float = 4.0
    settle_frames: int = 3

    def __post_init__(self) -> None:
        if not (self.race_window_s > 0 and self.frame_interval_s > 0 and self.touch_memory_s > 0):
            raise ValueError("the race window, frame interval and touch memory must be positive")
        if self.settle_frames < 1:
            raise ValueError("settle_frames must be at least 1")


@dataclass
class Lift:
    """A stock top seen lifted (in its player's hand), not yet seen landing or coming back."""

    player: str
    zone: str
    t: float
    attempted: bool = False


def layout_counts(sizes: tuple[int, ...], cards: int) -> tuple[list[int], int]:
    """Cards in each stock pile when `cards` are dealt row by row into piles of `sizes`, and
    the spit cards left over (RULES.md: "the player deals the five piles as far as the cards go").

    >>> layout_counts((1, 2, 3, 4, 5), 26), layout_counts((1, 2, 3, 4, 5), 8)
    (([1, 2, 3, 4, 5], 11), ([1, 2, 2, 2, 1], 0))
    """
    piles = [0] * len(sizes)
    dealt = 0
    for row in range(1, max(sizes) + 1):
        for k, size in enumerate(sizes):
            if size >= row and dealt < cards:
                piles[k] += 1
                dealt += 1
    return piles, cards - dealt
