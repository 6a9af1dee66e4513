"""The tracker: per-frame observations in, settled per-zone table snapshots (with hands' touches) out."""

from referee.tracker.tracker import BadTrackerConfig, Snapshot, Touch, Tracker, TrackerConfig, ZoneChange

__all__ = ["BadTrackerConfig", "Snapshot", "Touch", "Tracker", "TrackerConfig", "ZoneChange"]
