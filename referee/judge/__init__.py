"""The referee layer: tracked table snapshots in, the event log out (`referee judge`)."""
