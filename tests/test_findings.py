"""How messages quote source code: one line, cut to a length."""
import astroid

from mslint.findings import shown


def test_short_code_is_quoted_whole():
    assert shown(astroid.extract_node("np.exp(x)")) == "np.exp(x)"


def test_long_code_keeps_its_start_or_its_end():
    text = "a" * 30 + "." + "b" * 40
    assert shown(text, 40) == text[:37] + "..."
    assert shown(text, 40, keep_end=True) == "..." + text[-37:]


def test_multi_line_code_becomes_one_line():
    node = astroid.extract_node("f(\n    x,\n    y,\n)")
    assert "\n" not in shown(node) and shown(node) == " ".join(node.as_string().split())
