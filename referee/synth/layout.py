"""Random Spit tables: spit piles, stock piles, spit-card stacks, loose and fanned cards, markers, hands."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from referee.cards import ALL_CARDS
from referee.synth.hands import HandPose, random_hand
from referee.synth.props import random_props
from referee.synth.scene import BACK, CARD_THICKNESS_CM, CardPlacement, GlareSpot, Lighting, MarkerPlacement, Scene
from referee.synth.table import random_table


@dataclass(frozen=True)
class PlayArea:
    """The play area between the four markers (cm): width across the table, depth between the players."""

    width: float = 64.0
    depth: float = 56.0
    marker_size: float = 5.0

    def markers(self) -> tuple[MarkerPlacement, ...]:
        """Markers 0..3 at the corners as INTERFACES.md places them (0 far left, 1 far right,
        2 near right, 3 near left, seen from player A)."""
        w, d, s = self.width / 2, self.depth / 2, self.marker_size
        return tuple(MarkerPlacement(i, x, y, s) for i, (x, y) in enumerate(((-w, d), (w, d), (w, -d), (-w, -d))))


class Dealer:
    """Hands out card codes from a shuffled deck (a second deck once the first runs out)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.cards: list[str] = []

    def next(self) -> str:
        if not self.cards:
            self.cards = [ALL_CARDS[i].code for i in self.rng.permutation(len(ALL_CARDS))]
        return self.cards.pop()


def spit_pile(rng: np.random.Generator, dealer: Dealer, x: float, y: float, zone: str, z0: int,
              count: int) -> list[CardPlacement]:
    """A messy face-up pile: each card shifted and turned a little over the one below."""
    angle = float(rng.choice([0.0, 180.0]) + rng.normal(0, 12))
    cards = []
    for k in range(count):
        x += float(rng.normal(0, 0.5))
        y += float(rng.normal(0, 0.5))
        angle += float(rng.normal(0, 8))
        cards.append(CardPlacement(dealer.next(), x, y, angle, z0 + k, k * CARD_THICKNESS_CM, zone))
    return cards


def stock_pile(rng: np.random.Generator, dealer: Dealer, x: float, y: float, base_angle: float, zone: str,
               z0: int, count: int, face_up: bool) -> list[CardPlacement]:
    """A neat pile of backs (visible stacked edges from small offsets), its top face up or down."""
    cards = []
    ox, oy = rng.normal(0, 0.12, 2)
    for k in range(count):
        top = k == count - 1
        code = dealer.next() if top and face_up else BACK
        cards.append(CardPlacement(code, x + float(ox * k + rng.normal(0, 0.06)), y + float(oy * k + rng.normal(0, 0.06)),
                                   base_angle + float(rng.normal(0, 2.0)), z0 + k, k * CARD_THICKNESS_CM, zone))
    return cards


def fan(rng: np.random.Generator, dealer: Dealer, x: float, y: float, angle: float, z0: int, count: int,
        face_up: bool) -> list[CardPlacement]:
    """Cards fanned around a pivot near their bottom edge, as dropped or spread on the table."""
    step = float(rng.uniform(5, 14))
    cards = []
    for k in range(count):
        a = angle + (k - (count - 1) / 2) * step
        r = math.radians(a)
        cx, cy = x - 3.5 * math.sin(r), y + 3.5 * math.cos(r)
        cards.append(CardPlacement(dealer.next() if face_up else BACK, cx, cy, a, z0 + k, k * CARD_THICKNESS_CM))
    return cards


def _white_balance(temperature: float, tint: float) -> tuple[float, float, float]:
    """Channel gains of a camera's white balance: warm (+) to cold (-), with a slight green tint."""
    return 1.0 + 0.14 * temperature, 1.0 + tint, 1.0 - 0.16 * temperature


def held_stack(rng: np.random.Generator, side: str, x: float, y: float, z0: int,
               count: int) -> tuple[list[CardPlacement], HandPose]:
    """A player's spit cards held face down a few cm over the table, a hand gripping them."""
    base = 0.0 if side == "A" else 180.0
    angle = base + float(rng.normal(0, 20))
    height = float(rng.uniform(2.5, 9.0))
    tilt, roll = float(rng.normal(0, 10)), float(rng.normal(0, 10))
    cards = [CardPlacement(BACK, x + float(rng.normal(0, 0.08)), y + float(rng.normal(0, 0.08)),
                           angle + float(rng.normal(0, 1.5)), z0 + k, height + k * CARD_THICKNESS_CM,
                           lift=height if k == 0 else 0.04, tilt=tilt, roll=roll) for k in range(count)]
    a = math.radians(angle)
    grip = float(rng.uniform(-1.0, 2.5))  # how far the palm sits behind the stack's centre
    hand = random_hand(rng, side, x - grip * math.sin(a) * 2, y - grip * math.cos(a) * 2, height + 1.2)
    return cards, replace(hand, angle=angle + float(rng.normal(0, 10)), curl=float(rng.uniform(0.3, 0.8)))


def random_scene(rng: np.random.Generator, area: PlayArea = PlayArea(), marker_p: float = 0.5,
                 hands_p: float = 0.55) -> Scene:
    """A random moment of a Spit game between players A (near, y < 0) and B (far); now and then
    an empty table (hands and props only)."""
    dealer = Dealer(rng)
    cards: list[CardPlacement] = []
    hands: list[HandPose] = []
    empty = rng.random() < 0.03
    z = 0
    gap = float(rng.uniform(8.0, 13.0))
    for zone, sx in (("L", -gap / 2), ("R", gap / 2)):
        if not empty and rng.random() < 0.95:
            n = min(1 + int(rng.geometric(0.2)), 24)
            cards += spit_pile(rng, dealer, sx + float(rng.normal(0, 1.0)), float(rng.normal(0, 1.5)), zone, z, n)
            z += n
    spacing = float(rng.uniform(8.5, 11.5))
    row = area.depth / 2 - float(rng.uniform(6.5, 11))
    for side, y, base in (("A", -row, 0.0), ("B", row, 180.0)):
        sign = 1 if side == "A" else -1
        for i in range(0 if empty else 5):
            col = (i - 2) * spacing * sign
            count = int(rng.integers(0, 6)) if rng.random() < 0.85 else i + 1
            if count == 0:
                continue
            face_up = rng.random() < 0.8
            cards += stock_pile(rng, dealer, col + float(rng.normal(0, 0.8)), y + float(rng.normal(0, 0.8)),
                                base + float(rng.normal(0, 4)), f"{side}{i + 1}", z, count, face_up)
            z += count
        spit_x = (area.width / 2 - 4) * sign
        n = int(rng.integers(2, 12))
        if not empty and rng.random() < 0.3:  # the player's spit cards, face down beside the stock
            cards += [CardPlacement(BACK, spit_x + float(rng.normal(0, 0.3)), y * 0.4 + float(rng.normal(0, 0.3)),
                                    base + 90 + float(rng.normal(0, 10)), z + k, k * CARD_THICKNESS_CM)
                      for k in range(n)]
            z += n
        elif not empty and rng.random() < 0.3:  # ... or held in a hand over the table
            stack, hand = held_stack(rng, side, spit_x * float(rng.uniform(0.6, 1.1)), y * float(rng.uniform(0.8, 1.4)),
                                     z, n)
            cards += stack
            hands.append(hand)
            z += n
    for _ in range(0 if empty else int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))):  # loose or fanned cards
        x = rng.uniform(-area.width / 2 - 10, area.width / 2 + 10)
        y = rng.uniform(-area.depth / 2 - 5, area.depth / 2 + 5)
        if rng.random() < 0.5:
            n = int(rng.integers(2, 7))
            cards += fan(rng, dealer, float(x), float(y), float(rng.uniform(0, 360)), z, n, rng.random() < 0.6)
            z += n
        else:
            cards.append(CardPlacement(dealer.next() if rng.random() < 0.7 else BACK, float(x), float(y),
                                       float(rng.uniform(0, 360)), z))
            z += 1
    reaching: list[HandPose] = []
    if rng.random() < hands_p:
        for side in ("A", "B"):
            if rng.random() < 0.6:
                sign = -1 if side == "A" else 1
                target = rng.choice(len(cards)) if cards and rng.random() < 0.7 else None
                if target is not None:
                    tx, ty = cards[target].x, cards[target].y
                else:
                    tx, ty = rng.uniform(-25, 25), sign * rng.uniform(0, 25)
                reaching.append(random_hand(rng, side, float(tx + rng.normal(0, 3)),
                                            float(ty + sign * rng.uniform(0, 6))))
    if reaching and rng.random() < 0.3:  # a card in a hand, travelling above the table
        hand = reaching[0]
        a = math.radians(hand.angle)
        lifted = max(0.5, hand.height - 0.8)
        cards.append(CardPlacement(dealer.next(), hand.x + 5 * math.sin(a), hand.y + 5 * math.cos(a),
                                   hand.angle + float(rng.normal(0, 15)), z + 1, lifted, None, lift=lifted,
                                   motion_cm=hand.motion_cm, motion_angle=hand.motion_angle,
                                   tilt=float(rng.normal(0, 15)), roll=float(rng.normal(0, 12))))
    elif reaching and rng.random() < 0.15:  # a stock card being turned over, on its edge
        hand = reaching[0]
        a = math.radians(hand.angle)
        cards.append(CardPlacement(dealer.next(), hand.x + 4 * math.sin(a), hand.y + 4 * math.cos(a),
                                   hand.angle + float(rng.normal(0, 10)), z + 1, float(rng.uniform(2.0, 5.0)), None,
                                   lift=3.0, tilt=float(rng.uniform(40, 150)), roll=float(rng.normal(0, 10))))
    hands += reaching
    lighting = Lighting(
        azimuth=float(rng.uniform(0, 360)), elevation=float(rng.uniform(35, 85)),
        shadow=float(rng.uniform(0.2, 0.6)), ambient_ramp=float(rng.uniform(0, 0.3)),
        ramp_angle=float(rng.uniform(0, 360)), brightness=float(rng.uniform(0.65, 1.15) if rng.random() < 0.85 else rng.uniform(1.15, 1.4)),
        white_balance=_white_balance(float(rng.uniform(-1, 1)), float(rng.normal(0, 0.03))),
        vignette=float(rng.uniform(0, 0.35)),
        glare=tuple(GlareSpot(float(rng.uniform(-30, 30)), float(rng.uniform(-25, 25)), float(rng.uniform(3, 15)),
                              float(rng.uniform(0.15, 0.6))) for _ in range(int(rng.choice(3, p=[0.5, 0.35, 0.15])))),
        gloss=float(rng.uniform(0.3, 1.0)),
    )
    markers = area.markers() if rng.random() < marker_p else ()
    bends = rng.normal(0, 0.05, len(cards))
    cards = [replace(c, shade=float(np.clip(b, -0.15, 0.15))) for c, b in zip(cards, bends)]
    props = random_props(rng, area.width / 2, area.depth / 2)
    return Scene(tuple(cards), random_table(rng), tuple(hands), markers, lighting, props)
