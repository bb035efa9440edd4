"""The presenters of `ClientModel`, one file per area of the screens: each a part of the
model (mixed in), reading what it keeps from the server's messages."""
