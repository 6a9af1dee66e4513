"""`referee serve`: the live overlay in the browser (session thread, web app, built-in demo)."""
