"""Location and ConversationFormatError: where a problem is, in words and in attributes."""

from twnb.memory import ConversationFormatError, Location


def test_location_reads_file_round_post_attachment():
    where = Location("c.yaml").at_round(2).at_post(1).at_attachment(0)
    assert str(where) == "c.yaml: round 2, post 1, attachment 0"


def test_moving_to_another_round_forgets_the_post():
    assert str(Location("c.yaml").at_round(0).at_post(3).at_round(1)) == "c.yaml: round 1"


def test_an_empty_location_adds_no_prefix():
    assert str(Location().error("bad")) == "bad"


def test_error_carries_location_key_and_reason():
    error = Location("c.yaml", 1, 2).error("missing", key="send_to")
    assert isinstance(error, ValueError) and isinstance(error, ConversationFormatError)
    assert (error.location.round_index, error.location.post_index, error.key, error.reason) == (
        1,
        2,
        "send_to",
        "missing",
    )
    assert str(error) == "c.yaml: round 1, post 2: key 'send_to': missing"


def test_error_text_names_the_key_once():
    error = Location("c.yaml", 0).error("missing required key 'state'", key="state")
    assert str(error) == "c.yaml: round 0: missing required key 'state'"
