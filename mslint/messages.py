"""How a finding's message is put together: the problem in one short first sentence, then
what MindSpore does with it, the fix for this code, and the notes (how graph code reaches it,
which program compiles it), each a sentence of its own.

`--output-format concise` shows only the first sentence, so it must say the problem on its
own, in about 120 characters.
"""
from __future__ import annotations

from typing import Optional

from mslint.findings import shown

# how much of a code snippet a first sentence quotes ('nn.Dense(config.hidden_size, config.vo...')
SNIPPET = 40

# where a message's first sentence ends; compose() keeps the separator out of the problem
_BOUNDARY = ". "
# a non-breaking space: what compose() writes for ". " inside the problem (a string literal in a
# quoted snippet), so that the first sentence still ends where the problem does
_KEPT_SPACE = "\u00a0"


def snippet(code, keep_end: bool = False) -> str:
    """Source text (a node's or a string) short enough for a first sentence, quoted."""
    return f"'{shown(code, SNIPPET, keep_end)}'"


def quoted(code) -> str:
    """Source text quoted for a sentence after the first: cut to `shown`'s usual 60 characters."""
    return f"'{shown(code)}'"


def capitalized(text: str) -> str:
    """`text` with its first letter upper case, to begin a sentence ("class 'Box'" -> "Class 'Box'")."""
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """`text` as one sentence: stripped, and ending with a full stop unless it has its own
    (a quoted error that ends with ')' gets one after the parenthesis)."""
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else text + "."


def compose(problem: str, *details: Optional[str]) -> str:
    """A message: the problem as its first sentence, then each non-empty detail as a sentence."""
    first = sentence(problem).replace(_BOUNDARY, "." + _KEPT_SPACE)
    return " ".join([first] + [sentence(d) for d in details if d and d.strip()])


def extend(message: str, *details: Optional[str]) -> str:
    """A message with more sentences after it (the notes the analysis adds to a rule's message)."""
    return " ".join([sentence(message)] + [sentence(d) for d in details if d and d.strip()])


def first_sentence(message: str) -> str:
    """The first sentence of a message (with its full stop); the whole message when it has one."""
    head, separator, _ = message.partition(_BOUNDARY)
    return head + "." if separator else message


def rest(message: str) -> str:
    """What follows the first sentence ('' for a one-sentence message)."""
    return message.partition(_BOUNDARY)[2]


def without_sentence(message: str, start: str) -> str:
    """The message without its sentence that begins with `start` (past the first sentence);
    the message unchanged when it has none."""
    marker = " " + start
    at = message.find(marker, len(first_sentence(message)))
    if at < 0:
        return message
    end = message.find(_BOUNDARY, at + len(marker))
    return message[:at] if end < 0 else message[:at] + message[end + 1:]


def has_sentence(message: str, start: str) -> bool:
    """Whether a sentence past the first begins with `start`."""
    return message.find(" " + start, len(first_sentence(message))) >= 0
