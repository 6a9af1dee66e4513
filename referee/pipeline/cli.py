"""`referee run SOURCE --events LOG`: referee a game from a video file or a camera in real time, calls printed and logged as they happen."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

import cv2

from referee.events import Event, EventLog
from referee.judge.camera import spit_rules
from referee.judge.cli import describe
from referee.observations import StreamHeader
from referee.pipeline.memory import tune_malloc
from referee.pipeline.run import Pipeline, PipelineConfig, run_frames
from referee.pipeline.sources import open_source
from referee.vision.calibrate import load_calibration
from referee.vision.detector import MODELS_DIR, CardDetector, DetectorSettings, default_threads
from referee.vision.markers import DEFAULT_SIZE_CM
from referee.vision.observe import DetectorReader


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a video file, or a camera number (0, 1, ...)")
    parser.add_argument("--events", required=True, metavar="LOG.jsonl", help="append the event log here")
    parser.add_argument("--calibration", metavar="FILE", help="a calibration from `referee calibrate` "
                                                             "(default: find the markers in the first frames)")
    parser.add_argument("--rules", default="classic", help="rule set (default: classic)")
    parser.add_argument("--marker-size-cm", type=float, default=DEFAULT_SIZE_CM,
                        help=f"printed side of the markers without --calibration (default: {DEFAULT_SIZE_CM:g})")
    parser.add_argument("--evidence", metavar="DIR", help="where slap evidence strips go (default: LOG.evidence/)")
    parser.add_argument("--observations", metavar="OBS.jsonl", help="also write the per-frame observation stream")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, metavar="DIR", help="folder of the ONNX models")
    parser.add_argument("--threads", type=int, default=default_threads(), metavar="N", help="detector threads (default 2)")
    parser.add_argument("--quiet", action="store_true", help="do not print the calls")


def run(args: argparse.Namespace) -> int:
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    tune_malloc()  # before the camera's thread starts, so that it shares the process's few arenas
    spit_rules(args.rules)  # an unknown rule set is said before the models load
    calibration = load_calibration(args.calibration) if args.calibration else None
    events = Path(args.events)
    evidence = Path(args.evidence) if args.evidence else events.with_name(events.name + ".evidence")
    with contextlib.ExitStack() as stack:
        source = open_source(args.source)
        stack.callback(source.close)
        reader = DetectorReader(CardDetector(args.models, DetectorSettings(threads=args.threads)))
        on_observation = None
        if args.observations:
            stream = stack.enter_context(open(args.observations, "w", encoding="utf-8"))
            stream.write(StreamHeader(fps=source.fps, rules=args.rules, source=source.name).to_json() + "\n")
            on_observation = lambda obs: stream.write(obs.to_json() + "\n")  # noqa: E731
        log = stack.enter_context(EventLog(events, fsync=False))

        def called(event: Event) -> None:
            log.append(event)
            if not args.quiet:
                print(f"{event.t:9.3f} s  {describe(event)}", flush=True)

        pipeline = Pipeline(reader, PipelineConfig(rules=args.rules, marker_size_cm=args.marker_size_cm), calibration,
                            fps=source.fps, evidence_dir=evidence, on_observation=on_observation)
        frames = run_frames(source, pipeline, called)
    if not args.quiet:
        print(f"{frames} frames from {source.name}; events in {events}", file=sys.stderr)
    return 0
