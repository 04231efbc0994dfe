"""`python -m tests.fakellm --script script.json --port 0`: the server as its own process."""

from .server import main

raise SystemExit(main())
