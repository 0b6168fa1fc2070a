"""Text views: obfuscations are undone and every view character maps back to the original."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from models.chat.normalize import MAX_CHARS, Normalizer

NORMALIZER = Normalizer()


def _origin_text(text: str, view_start: int, view_end: int, which: str = "folded") -> str:
    view = getattr(NORMALIZER.views(text), which)
    start, end = view.origin(view_start, view_end)
    return text[start:end]


def test_spaced_letters_are_joined_and_map_back_to_the_spaced_original() -> None:
    views = NORMALIZER.views("ok f u c k you")
    assert views.folded.text == "ok fuck you"
    assert _origin_text("ok f u c k you", 3, 7) == "f u c k"


def test_leetspeak_repeats_and_zero_width_are_undone() -> None:
    assert NORMALIZER.views("sh1t").folded.text == "shit"
    assert NORMALIZER.views("fuuuuuck").folded.text == "fuuck"
    text = "bi\u200btch"
    views = NORMALIZER.views(text)
    assert views.folded.text == "bitch"
    assert _origin_text(text, 0, 5) == text


def test_poker_shorthand_is_not_read_as_leetspeak() -> None:
    assert NORMALIZER.views("3bet to 500").folded.text == "3bet to 500"


def test_mixed_script_homoglyphs_fold_to_the_word_majority_script() -> None:
    assert NORMALIZER.views("раssword").plain.text == "password"  # Cyrillic р, а in a Latin word
    assert NORMALIZER.views("сукa").plain.text == "сука"  # Latin a in a Cyrillic word
    assert NORMALIZER.views("привіт друже").plain.text == "привіт друже"  # untouched


def test_bare_view_drops_vietnamese_accents_and_decomposed_input_composes() -> None:
    assert NORMALIZER.views("Đụ má").bare.text == "du ma"
    decomposed = "che\u0300o"  # è typed as e + combining grave
    views = NORMALIZER.views(decomposed)
    assert views.plain.text == "chèo"
    assert views.bare.text == "cheo"
    assert _origin_text(decomposed, 0, 4, "bare") == decomposed


def test_fullwidth_letters_fold_to_ascii() -> None:
    assert NORMALIZER.views("ＦＵＣＫ").folded.text == "fuck"


def test_analysis_is_truncated() -> None:
    assert len(NORMALIZER.views("a" * 1_000_000).plain.text) == MAX_CHARS


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_every_view_maps_back_inside_the_original(text: str) -> None:
    views = NORMALIZER.views(text)
    for view in (views.plain, views.bare, views.folded):
        if view.offsets is None:
            assert len(view.text) == len(text[:MAX_CHARS])
            continue
        assert len(view.offsets) == len(view.text)
        assert view.offsets == sorted(view.offsets)
        assert all(0 <= o < len(text) for o in view.offsets)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("aAé1!3$ .-*_+|@Ёё\nсiİΣ€đk"), max_size=40), max_size=8))
def test_batch_views_equal_one_at_a_time(texts: list[str]) -> None:
    batch = NORMALIZER.views_many(texts)
    for text, views in zip(texts, batch, strict=True):
        alone = NORMALIZER.views(text)
        for which in ("plain", "bare", "folded"):
            a, b = getattr(alone, which), getattr(views, which)
            assert (a.text, a.offsets) == (b.text, b.offsets), (text, which)


def test_letter_runs_made_by_leetspeak_are_still_capped() -> None:
    # "$$s" becomes "sss" only after the leetspeak pass: the batch run check must not skip it.
    assert NORMALIZER.views_many(["a$$s"])[0].folded.text == NORMALIZER.views("a$$s").folded.text == "ass"


def test_fast_paths_fold_like_the_general_path() -> None:
    assert NORMALIZER.views("ΟΔΥΣΣΕΥΣ").plain.text == "οδυσσευσ"  # the table's σ, not str.lower's ς
    assert NORMALIZER.views("Đánh bài").plain.text == "dánh bài"
    assert NORMALIZER.views("Đánh bài").bare.text == "danh bai"
    assert NORMALIZER.views("ЙОГО ЇЖАК").bare.text == "иого іжак"


def test_accent_stripping_word_by_word_equals_the_whole_line_translate() -> None:
    """Why `_strip_accents` may translate words apart (and reuse them): the table maps one
    character to one character and never touches the space between words."""
    table = NORMALIZER._bare_table
    assert ord(" ") not in table
    assert all(len(v if isinstance(v, str) else chr(v)) == 1 for v in table.values())
    line = "không được đâu, bạn ơi   thế  à không"
    for _ in range(2):  # from the table, then from the memo
        assert NORMALIZER._strip_accents(line) == line.translate(table)
