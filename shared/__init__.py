"""Code both sides of the wire use: the pure rules engine, the bots and the message schema."""
