"""Synthetic webcam images of a Spit table with exact labels (library behind `referee synth-data`).

Pieces: `faces` (card faces drawn in built-in styles, or read from a folder), `backs`, `table`
(surfaces, optionally with edges and the room beyond), `hands` (hand, forearm, upper arm,
sleeve), `props` (distractors: paper, notes, phones, coins, pens, coasters, printed boxes),
`camera` (pinhole webcam over the table plane), `scene` (placements and rendering: shadows,
glare, light ramp, vignetting, white balance, motion blur of moving cards and hands), `layout`
(random Spit tables), `photometric` (sensor effects: defocus, shake, noise, gamma, sharpening,
JPEG), `annotation` and `labels` (ground truth and YOLO lines), `dataset` (seeded samples and
dataset folders; image i depends only on (seed, i)).

Rendering a scene of your own (e.g. a game as video)::

    scene = Scene(cards=(CardPlacement("QS", x=-5, y=0, angle=10, z=0, zone="L"), ...),
                  table=TableStyle("wood", (150, 100, 60), (110, 70, 40), seed=1),
                  hands=(HandPose("A", x=-5, y=-6, angle=0, height=1.0, skin=SKIN_TONES[3]),),
                  markers=PlayArea().markers(), lighting=Lighting())
    camera = Camera.look_at(1280, 720, target=(0, 0), distance_cm=90, tilt_deg=40, yaw_deg=0)
    rendered = render_scene(scene, camera, Deck(BuiltinFaces(BUILTIN_STYLES[0]), builtin_back(BUILTIN_BACKS[0])))
    frame = apply_effects(rendered.image, SensorEffects(noise=0.01), rng)   # uint8 RGB
    rendered.annotation.to_dict()                                             # the JSON below

Drawing frame by frame (video: what does not change is drawn once), with the same code as
`render_scene`, which is exactly these steps::

    table = Canvas(camera, scene.table, scene.lighting, deck, scene.markers, scene.props)  # table, markers, props
    canvas = table.copy()                        # a layer to draw on; `table` stays as it is
    canvas.draw_cards(scene.cards)               # in stacking order, with shadows
    canvas.draw_hands(scene.hands)               # the lower first (or `draw_hand(pose)`: one on top)
    rendered = canvas.finish()                   # Rendered: image under the light + annotation

`Canvas(..., labels=False)` keeps no record of what shows where (faster; `finish` then refuses):
a video renderer multiplies its frames by `table.gain()` (the light as one per-pixel factor)
instead, and may copy parts of one canvas's `image` into another's (`referee.render.compose`).

A moving card or hand: `CardPlacement(..., motion_cm=3, motion_angle=90)` smears it over 3 cm
towards +x during the exposure (its annotation is the middle of the movement); a card carried in
a hand is a placement with `height` and `lift` of a few cm and a higher `z` than the piles;
`tilt` / `roll` turn a card out of the table plane (a card being turned over: tilt 0 -> 180; once
the camera sees its other side the annotation calls it "back").
Rendering is deterministic: the same scene, camera and deck give the same image (for video,
keep `TableStyle.seed` fixed and vary only the placements, hands and the effects' rng).

Table frame: centimetres on the table plane, origin at the middle of the play area, x to player
A's right, y away from player A (towards player B), z up. A card at angle 0 is upright for
player A (its top edge towards B); angles turn counter-clockwise seen from above.

Annotation JSON (`DIR/annotations/{train,val}/NNNNNN.json`, schema version 1). Image points are
continuous pixels, (0, 0) at the top-left corner of the top-left pixel::

    {"version": 1,
     "image": {"width": W, "height": H, "file": "images/train/000123.jpg"},
     "cards": [{"card": "QS" | "back",            # card code of INTERFACES.md, or "back"
                "corners": [[x, y] x 4],           # top-left, top-right, bottom-right, bottom-left
                                                   # of the card as printed (upright face); for a
                                                   # back the same geometric corners; may lie
                                                   # outside the image
                "visible": 0.0..1.0,               # share of the card not covered by cards above
                                                   # or hands (measured on its part inside the
                                                   # frame; 0 when none of it is)
                "in_frame": 0.0..1.0,              # share of the card's area inside the image
                "index_visible": [bool, bool],     # top-left / bottom-right index corner seen
                                                   # (at least 3/4 of it); always false for backs
                "z": int,                          # stacking order, higher is on top
                "zone": "L" | "R" | "A1".."B5" | null}],   # pile, null for loose cards
     "hands": [{"side": "A" | "B", "polygon": [[x, y], ...]}],   # hand and arm outline,
                                                   # clipped to the frame (another hand above may
                                                   # cover part of it)
     "markers": [{"id": 0..3, "corners": [[x, y] x 4],    # ArUco DICT_4X4_50, OpenCV corner
                  "visible": 0.0..1.0}],           # order; share of the black square seen; only
                                                   # when the markers are on the table
     "camera": {"homography": 3x3,                 # table plane (cm, z = 0) -> image pixels
                "tilt_deg": float},                # 0 = looking straight down
     "scene": {"table": "wood", "faces": "classic-sans" | "folder", "back": "lattice-aa1923"}}

Every card in the scene is listed (also hidden and out-of-frame ones), except cards partly
behind the camera. YOLO labels (`labels.yolo_text`: a card is labelled when visible >= 0.5 and in_frame >= 0.2,
both parameters; boxes are the whole card, clipped to the image) are a pure function of this
annotation; so
are other schemes: e.g. an index-corner crop is the region `scene.INDEX_REGION` (fractions of
the card: left, top, right, bottom) mapped through the card's corners (and, turned 180 degrees,
the bottom-right index).
"""

from referee.synth.annotation import Annotation, CardLabel, HandLabel, MarkerLabel
from referee.synth.backs import BUILTIN_BACKS, BackStyle, builtin_back, folder_back
from referee.synth.camera import Camera
from referee.synth.dataset import SynthConfig, generate_dataset, generate_sample, random_camera
from referee.synth.faces import BUILTIN_STYLES, FACE_CODES, BuiltinFaces, FaceStyle, FolderFaces, SynthAssetError
from referee.synth.hands import SKIN_TONES, HandPose
from referee.synth.labels import CLASS_NAMES, yolo_boxes, yolo_obb, yolo_text
from referee.synth.layout import PlayArea, random_scene
from referee.synth.photometric import SensorEffects, apply_effects, encode_jpeg, random_effects
from referee.synth.props import Prop
from referee.synth.scene import (
    Canvas, CardPlacement, Deck, GlareSpot, Lighting, MarkerPlacement, Rendered, Scene, render_scene,
)
from referee.synth.table import TableStyle

__all__ = [
    "Annotation", "CardLabel", "HandLabel", "MarkerLabel", "BUILTIN_BACKS", "BackStyle", "builtin_back",
    "folder_back", "Camera", "SynthConfig", "generate_dataset", "generate_sample", "random_camera",
    "BUILTIN_STYLES", "FACE_CODES", "BuiltinFaces", "FaceStyle", "FolderFaces", "SynthAssetError", "SKIN_TONES",
    "HandPose", "CLASS_NAMES", "yolo_boxes", "yolo_obb", "yolo_text", "PlayArea", "random_scene",
    "SensorEffects", "apply_effects", "encode_jpeg", "random_effects", "Prop", "Canvas", "CardPlacement", "Deck", "GlareSpot", "Lighting",
    "MarkerPlacement", "Rendered", "Scene", "render_scene", "TableStyle",
]
