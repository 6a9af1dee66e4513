"""The ground-truth annotation of one synthetic image and its JSON form (schema in `referee.synth`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Point = tuple[float, float]
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class CardLabel:
    """One card: code or "back", image corners as printed (TL, TR, BR, BL), the share of it not
    hidden by cards above or hands, whether each index corner (top-left, bottom-right) is
    visible, stacking order, pile, and the share of it inside the frame."""

    card: str
    corners: tuple[Point, ...]
    visible: float
    index_visible: tuple[bool, bool]
    z: int
    zone: str | None
    in_frame: float = 1.0


@dataclass(frozen=True)
class HandLabel:
    """The outline of a hand and forearm in the image and the player it belongs to ("A" or "B")."""

    side: str
    polygon: tuple[Point, ...]


@dataclass(frozen=True)
class MarkerLabel:
    """An ArUco marker's id, its image corners in OpenCV's order (TL, TR, BR, BL as printed) and
    the share of its black square seen (not covered, inside the frame)."""

    marker_id: int
    corners: tuple[Point, ...]
    visible: float = 1.0


@dataclass(frozen=True)
class Annotation:
    """Everything known about one image; `homography` maps table-plane cm to image pixels."""

    width: int
    height: int
    cards: tuple[CardLabel, ...]
    hands: tuple[HandLabel, ...]
    markers: tuple[MarkerLabel, ...]
    homography: tuple[tuple[float, ...], ...]
    tilt_deg: float
    table: str = ""
    faces: str = ""
    back: str = ""
    """What the scene was drawn with (surface kind, face style or folder, back); for analysis."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": SCHEMA_VERSION,
            "image": {"width": self.width, "height": self.height},
            "cards": [{"card": c.card, "corners": [list(p) for p in c.corners], "visible": c.visible,
                       "index_visible": list(c.index_visible), "z": c.z, "zone": c.zone,
                       "in_frame": c.in_frame} for c in self.cards],
            "hands": [{"side": h.side, "polygon": [list(p) for p in h.polygon]} for h in self.hands],
            "markers": [{"id": m.marker_id, "corners": [list(p) for p in m.corners], "visible": m.visible}
                        for m in self.markers],
            "camera": {"homography": [list(r) for r in self.homography], "tilt_deg": self.tilt_deg},
            "scene": {"table": self.table, "faces": self.faces, "back": self.back},
        }

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Annotation":
        def pts(values: list[list[float]]) -> tuple[Point, ...]:
            return tuple((float(x), float(y)) for x, y in values)

        return Annotation(
            width=int(data["image"]["width"]), height=int(data["image"]["height"]),
            cards=tuple(CardLabel(c["card"], pts(c["corners"]), float(c["visible"]),
                                  (bool(c["index_visible"][0]), bool(c["index_visible"][1])),
                                  int(c["z"]), c["zone"], float(c.get("in_frame", 1.0))) for c in data["cards"]),
            hands=tuple(HandLabel(h["side"], pts(h["polygon"])) for h in data["hands"]),
            markers=tuple(MarkerLabel(int(m["id"]), pts(m["corners"]), float(m.get("visible", 1.0)))
                          for m in data["markers"]),
            homography=tuple(tuple(float(v) for v in row) for row in data["camera"]["homography"]),
            tilt_deg=float(data["camera"]["tilt_deg"]),
            table=str(data.get("scene", {}).get("table", "")), faces=str(data.get("scene", {}).get("faces", "")),
            back=str(data.get("scene", {}).get("back", "")),
        )
