"""What a run shows and writes, recorded: outputs, displays, comms and threads that print later, each
redacted and with no active content, images saved as files, the files the code wrote."""
