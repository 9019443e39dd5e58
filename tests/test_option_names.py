"""Option names: a misspelt or misplaced option fails with a suggestion instead of being
ignored; Spark's own options pass; load(path) / save(path) name the queue; the connector's
errors survive the trip between Spark's processes (pickling)."""
from __future__ import annotations

import pickle

import pytest

from spark_mq.errors import MQConnectorError, MQOptionError, UnknownOptionError
from spark_mq.options import READ_OPTIONS, WRITE_OPTIONS, ReadOptions, WriteOptions

BASE = {"connname": "localhost(1414)", "queue": "DEV.QUEUE.1"}


@pytest.mark.parametrize("misspelt, meant", [
    ("maxMessagePerTrigger", "maxMessagesPerTrigger"),
    ("selecter", "selector"),
    ("queuemanger", "queueManager"),
    ("reconectTimeoutMs", "reconnectTimeoutMs"),
])
def test_a_misspelt_reader_option_fails_with_a_suggestion(misspelt, meant):
    with pytest.raises(UnknownOptionError) as failure:
        ReadOptions.parse({**BASE, misspelt: "5"})
    assert failure.value.suggestion == meant
    assert str(failure.value) == (f"unknown option '{misspelt.lower()}' for reading from MQ; "
                                  f"did you mean '{meant}'?")


def test_an_option_like_nothing_known_lists_the_valid_ones():
    with pytest.raises(UnknownOptionError, match="the options for writing to MQ are: asyncPut, "):
        WriteOptions.parse({**BASE, "zzz": "1"}, streaming=True)


def test_an_option_of_the_other_direction_says_so():
    with pytest.raises(MQOptionError, match="'maxMessagesPerTrigger'.*for reading from MQ, not "
                                            "for writing to MQ"):
        WriteOptions.parse({**BASE, "maxmessagespertrigger": "5"}, streaming=True)
    with pytest.raises(MQOptionError, match="'commitEvery'.*for writing to MQ, not for reading"):
        ReadOptions.parse({**BASE, "commitevery": "5"})


def test_the_options_spark_adds_are_accepted():
    assert ReadOptions.parse({**BASE, "queryname": "q"}).queue == "DEV.QUEUE.1"
    writer = WriteOptions.parse({**BASE, "checkpointlocation": "/tmp/c", "queryname": "q"},
                                streaming=True)
    assert writer.queue == "DEV.QUEUE.1"


def test_every_documented_option_is_known():
    """The names in the options module's docstring and in README are the ones accepted."""
    import spark_mq.options as module
    for name in READ_OPTIONS + WRITE_OPTIONS:
        assert name in (module.__doc__ or ""), name


def test_load_and_save_paths_name_the_queue():
    assert ReadOptions.parse({"connname": "h(1)", "path": "IN.Q"}).queue == "IN.Q"
    assert WriteOptions.parse({"connname": "h(1)", "path": "OUT.Q"}, streaming=False).queue == "OUT.Q"
    with pytest.raises(MQOptionError, match="option 'path': invalid value 'B'"):
        ReadOptions.parse({"connname": "h(1)", "path": "B", "queue": "A"})


@pytest.mark.parametrize("error", [
    MQOptionError("queue", None, "a queue name"),
    UnknownOptionError("zzz", "reading from MQ", "queue", ("queue", "selector")),
    MQConnectorError("putting failed: MQ reason 2053 MQRC_Q_FULL", 2053, "MQRC_Q_FULL"),
])
def test_errors_survive_pickling(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and str(copy) == str(error)
    assert copy.__dict__ == error.__dict__


def test_require_text_is_a_boolean_and_needs_a_unit_of_work_to_move_in():
    assert ReadOptions.parse({**BASE, "requireText": "true"}).require_text
    assert not ReadOptions.parse(BASE).require_text
    with pytest.raises(MQOptionError, match="requireText.*atMostOnce"):
        ReadOptions.parse({**BASE, "requireText": "true", "delivery": "atMostOnce"})
    with pytest.raises(MQOptionError, match="requireText"):
        ReadOptions.parse({**BASE, "requireText": "always"})
