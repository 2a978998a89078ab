"""How a finding's message is put together (mslint.messages): the problem in its first sentence,
then the details, each a sentence; what the routing of findings reads back from it."""
from mslint.messages import compose, extend, first_sentence, has_sentence, rest, snippet, without_sentence


def test_a_message_is_the_problem_then_one_sentence_per_detail():
    message = compose("'x.asnumpy()' converts a tensor to NumPy in graph code",
                      "STRICT rejects it (AttributeError: cannot get attributes asnumpy)", "", None,
                      "Use ops.where instead.")
    assert message == ("'x.asnumpy()' converts a tensor to NumPy in graph code. STRICT rejects it (AttributeError: "
                       "cannot get attributes asnumpy). Use ops.where instead.")
    assert first_sentence(message) == "'x.asnumpy()' converts a tensor to NumPy in graph code."
    assert rest(message) == "STRICT rejects it (AttributeError: cannot get attributes asnumpy). Use ops.where instead."
    assert first_sentence("cannot parse the file: invalid syntax") == "cannot parse the file: invalid syntax"


def test_a_full_stop_and_space_inside_the_problem_does_not_end_the_first_sentence():
    message = compose("'print(\"Done. Next\")' is called in graph code", "It runs once, at compile time")
    assert first_sentence(message) == "'print(\"Done.\u00a0Next\")' is called in graph code."
    assert rest(message) == "It runs once, at compile time."


def test_notes_are_appended_and_the_reach_note_can_be_taken_out_again():
    message = extend(compose("A problem", "A consequence"), "In helper, called from Net.construct (line 5)",
                     "Only compiled when the caller passes flag other than its default False")
    assert message == ("A problem. A consequence. In helper, called from Net.construct (line 5). Only compiled "
                       "when the caller passes flag other than its default False.")
    assert has_sentence(message, "Only compiled when ") and not has_sentence(message, "A problem")
    assert without_sentence(message, "In helper, called from ") == (
        "A problem. A consequence. Only compiled when the caller passes flag other than its default False.")
    assert without_sentence(message, "In other, called from ") == message


def test_a_snippet_is_cut_to_about_forty_characters():
    assert snippet("nn.Dense(config.hidden_size, config.vocab_size, has_bias=False)") == \
        "'nn.Dense(config.hidden_size, config.v...'"
    assert snippet("a\n    + b") == "'a + b'"
