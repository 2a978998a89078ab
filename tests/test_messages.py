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


# -- every rule's first sentence is short (issue 26) ------------------------------------------------
FIRST_SENTENCE_LIMIT = 120


def _page_examples():
    from mslint import rule_pages
    from mslint.rules import registry

    for rule in registry():
        if rule.check is None:
            continue
        for block in rule_pages.python_blocks(rule_pages.sections(rule_pages.read_page(rule.code))["Example"]):
            yield rule.code, block


def test_every_rule_page_example_states_its_problem_in_a_short_first_sentence(project):
    from conftest import default_and

    long = []
    seen = set()
    for code, block in _page_examples():
        for finding in project.lint_source(block, select=default_and(code)):
            seen.add(finding.code)
            problem = first_sentence(finding.message)
            if len(problem) > FIRST_SENTENCE_LIMIT or not problem.endswith("."):
                long.append(f"{finding.code} ({len(problem)}): {problem}")
    assert not long, "\n".join(long)
    assert len(seen) >= 50  # (the pages' examples reach nearly every rule)


def test_every_syntax_suite_finding_states_its_problem_in_a_short_first_sentence(project):
    from test_mindspore_syntax_suite import CASES, NEW_RULES, _source

    long = []
    for case, body, expected, level in CASES:
        if expected is None:
            continue
        [finding] = project.lint_source(_source(body), select=NEW_RULES, syntax_level=level)
        problem = first_sentence(finding.message)
        if len(problem) > FIRST_SENTENCE_LIMIT or not problem.endswith("."):
            long.append(f"{case}: {finding.code} ({len(problem)}): {problem}")
    assert not long, "\n".join(long)


def test_the_message_length_benchmark_reads_a_folder_of_reports(tmp_path, capsys):
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "message_lengths.py"
    spec = importlib.util.spec_from_file_location("message_lengths", path)
    lengths = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lengths)
    short = compose("A" * 99, "B" * 300)  # a first sentence of 100 characters
    old = "x" * 250  # a message of one long sentence, as before issue 26
    (tmp_path / "a.json").write_text(json.dumps([{"code": "MS101", "message": short}]))
    (tmp_path / "b.json").write_text(json.dumps([{"code": "MS102", "message": old},
                                                 {"code": "MS101", "message": short}]))
    result = lengths.measure(lengths.messages([str(tmp_path)]))
    assert result["all"] == {"findings": 3, "median_first": 100, "max_first": 250, "over_120": 1, "over_200": 1,
                             "median_message": 402, "max_message": 402}
    assert result["MS101"]["max_first"] == 100 and result["MS102"]["over_200"] == 1
    assert lengths.main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("3 findings: first sentence median 100, longest 250, 1 over 120, "
                                              "1 over 200")
