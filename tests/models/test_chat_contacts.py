"""Contact details in chat: the handle gate counts the line's digits, not the last phone match's."""

from __future__ import annotations

from models.chat.links import find_contacts


def test_a_handle_after_a_short_digit_run_is_still_found() -> None:
    # The last phone-shaped match ("1-------2") holds two digits; the line holds fifteen.
    text = "call 0812 3456 7890 or 1-------2 telegram johnny7"
    kinds = [(h.reason, text[h.start : h.end]) for h in find_contacts(text)]
    assert ("phone number", "0812 3456 7890") in kinds
    assert ("messenger handle", "telegram johnny7") in kinds


def test_digits_alone_are_no_handle() -> None:
    assert [h.reason for h in find_contacts("0812 3456 7890")] == ["phone number"]
    assert find_contacts("raise to 1,250,000") == []
