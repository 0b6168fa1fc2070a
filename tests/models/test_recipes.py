"""Recipe-check machinery on small synthetic data: it must learn a planted signal, stay at chance
on shuffled labels, tune decision offsets on training data only, and run end to end from files."""

from __future__ import annotations

import csv
import random
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.svm import LinearSVC

from models.chat.corpus.slurs import hate_features, slur_features
from models.chat.data import davidson_agreement, davidson_hate_share
from models.chat.recipe_features import CountedFeatures, SlangNormalizer, TextFeatures
from models.chat.recipe_models import (
    Member,
    NBLogistic,
    OneVsRestNB,
    binary_scores,
    ensemble_recipe,
    macro_f1,
    multiclass_recipe,
    out_of_fold_scores,
    tune_offsets,
)
from models.chat.recipe_stack import floor_objective, stacked_recipe
from models.chat.recipes import run_recipes

NEUTRAL = [f"w{a}{b}" for a in "bcdfgklmnp" for b in "aeiou"]
MARKERS = {1: ["zorbex", "quilmo", "frandle"], 2: ["vashkir", "plomtu", "gredno"]}


def synthetic(n: int, *, seed: int, classes: tuple[int, ...] = (0, 1)) -> tuple[list[str], np.ndarray]:
    """Texts of neutral words; a class > 0 usually (85 %) carries one of its marker words, and
    5 % of all texts carry a random marker as noise, so the task is learnable but not trivial."""
    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        y = rng.choice(classes)
        words = rng.choices(NEUTRAL, k=rng.randint(4, 9))
        if y > 0 and rng.random() < 0.85:
            words.insert(rng.randrange(len(words) + 1), rng.choice(MARKERS[y]))
        if rng.random() < 0.05:
            words.append(rng.choice(MARKERS[rng.choice([1, 2])]))
        texts.append(" ".join(words))
        labels.append(y)
    return texts, np.array(labels, dtype=np.int64)


def test_binary_recipe_learns_planted_signal() -> None:
    train_x, train_y = synthetic(600, seed=1)
    test_x, test_y = synthetic(300, seed=2)
    scores = binary_scores(train_x, train_y, test_x, make_features=TextFeatures, c=4.0, seed=0)
    assert roc_auc_score(test_y, scores) > 0.85


def test_binary_recipe_with_svm_average_learns_too() -> None:
    train_x, train_y = synthetic(600, seed=1)
    test_x, test_y = synthetic(300, seed=2)
    scores = binary_scores(train_x, train_y, test_x, make_features=TextFeatures, c=4.0, seed=0, svc_c=1.0)
    assert roc_auc_score(test_y, scores) > 0.85


def test_binary_recipe_stays_near_chance_on_shuffled_labels() -> None:
    train_x, train_y = synthetic(600, seed=1)
    test_x, test_y = synthetic(300, seed=2)
    shuffled = np.random.default_rng(0).permutation(train_y)
    scores = binary_scores(train_x, shuffled, test_x, make_features=TextFeatures, c=4.0, seed=0)
    assert abs(roc_auc_score(test_y, scores) - 0.5) < 0.12


def test_binary_recipe_is_reproducible() -> None:
    train_x, train_y = synthetic(300, seed=3)
    test_x, _ = synthetic(100, seed=4)
    runs = [binary_scores(train_x, train_y, test_x, make_features=TextFeatures, c=4.0, seed=7) for _ in "ab"]
    np.testing.assert_allclose(runs[0], runs[1])


def test_multiclass_recipe_beats_majority_and_tunes_on_train_only() -> None:
    train_x, train_y = synthetic(900, seed=5, classes=(0, 0, 0, 1, 2))
    test_x, test_y = synthetic(400, seed=6, classes=(0, 0, 0, 1, 2))
    result = multiclass_recipe(
        train_x,
        train_y,
        test_x,
        test_y,
        make_features=TextFeatures,
        objective=macro_f1,
        make_model=partial(OneVsRestNB, c=4.0, seed=0),
        seed=0,
        folds=3,
    )
    majority = np.zeros_like(test_y)
    assert macro_f1(result.y_true, result.y_pred) > macro_f1(test_y, majority) + 0.3
    assert set(np.unique(result.y_pred)) == {0, 1, 2}
    # The recorded objective comes from out-of-fold TRAIN scores, not from the test split.
    assert 0.0 < result.oof_objective <= 1.0
    assert result.offsets[0] == 0.0


def test_tune_offsets_recovers_a_rare_class_the_argmax_ignores() -> None:
    rng = np.random.default_rng(0)
    y = np.array([0] * 180 + [1] * 20, dtype=np.int64)
    # Class 1 is separable, but its scores sit 1.5 below where argmax would pick it.
    scores = np.column_stack([np.zeros(200), np.where(y == 1, -0.5, -2.5) + rng.normal(0, 0.2, 200)])
    classes = np.array([0, 1], dtype=np.int64)
    before = macro_f1(y, classes[np.argmax(scores, axis=1)])
    offsets = tune_offsets(scores, y, classes, macro_f1)
    after = macro_f1(y, classes[np.argmax(scores + offsets, axis=1)])
    assert after > before + 0.3
    assert f1_score(y == 1, np.argmax(scores + offsets, axis=1) == 1) > 0.9


def test_tune_offsets_leaves_an_already_good_decision_alone() -> None:
    y = np.array([0, 1, 2] * 30, dtype=np.int64)
    scores = np.eye(3)[y] * 3.0
    offsets = tune_offsets(scores, y, np.arange(3, dtype=np.int64), macro_f1)
    np.testing.assert_array_equal(offsets, np.zeros(3))


def test_classifiers_reject_degenerate_labels_and_use_before_fit() -> None:
    x = TextFeatures().fit_transform(["a b", "c d", "e f"])
    with pytest.raises(ValueError, match="both classes"):
        NBLogistic(c=1.0, seed=0).fit(x, np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="two classes"):
        OneVsRestNB(c=1.0, seed=0).fit(x, np.ones(3, dtype=np.int64))
    with pytest.raises(RuntimeError, match="before fit"):
        NBLogistic(c=1.0, seed=0).decision_function(x)


def test_slang_normalizer_maps_tokens_and_keeps_raw_text(tmp_path: Path) -> None:
    path = tmp_path / "kamus.csv"
    path.write_text("jgn,jangan\ngk,tidak\nbroken-row\n", encoding="latin-1")
    norm = SlangNormalizer.from_csv(path)
    assert norm("Jgn gitu \\xf0\\x9f ya") == "jangan gitu ya || Jgn gitu \\xf0\\x9f ya"
    assert norm("rumah") == "rumah || rumah"


def _write_vihos(root: Path) -> None:
    folder = root / "vihos"
    folder.mkdir(parents=True)
    names = {1: "Span_Extraction_based_version_train.csv", 2: "Span_Extraction_based_version_dev.csv"}
    names[3] = "Test_data_test.csv"
    for seed, name in names.items():
        texts, labels = synthetic(400 if seed == 1 else 150, seed=10 + seed)
        with (folder / name).open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["", "content", "index_spans"])
            for i, (text, y) in enumerate(zip(texts, labels, strict=True)):
                writer.writerow([i, text, "[0, 1]" if y else "[]"])


def test_run_recipes_end_to_end_from_files(tmp_path: Path) -> None:
    _write_vihos(tmp_path)
    out = run_recipes(tmp_path, seed=0, only=["vihos"])
    assert out["vihos_roc_auc"]["value"] > 0.85
    assert out["vihos_roc_auc"]["target"] == 0.96
    assert set(out["cpu_seconds"]) == {"vihos"}


def test_run_recipes_rejects_unknown_recipe(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown recipe"):
        run_recipes(tmp_path, only=["nope"])


def test_ensemble_recipe_beats_majority_with_weighted_and_unweighted_members() -> None:
    train_x, train_y = synthetic(900, seed=5, classes=(0, 0, 0, 1, 2))
    test_x, test_y = synthetic(400, seed=6, classes=(0, 0, 0, 1, 2))
    members = (
        Member(train_x, test_x, make_features=TextFeatures, make_model=partial(OneVsRestNB, c=4.0, seed=0),
               weights=np.ones(len(train_y))),
        Member(train_x, test_x, make_features=TextFeatures,
               make_model=partial(LinearSVC, C=0.3, class_weight="balanced", random_state=0)),
    )  # fmt: skip
    result = ensemble_recipe(members, train_y, test_y, objective=macro_f1, seed=0, folds=3)
    assert macro_f1(result.y_true, result.y_pred) > macro_f1(test_y, np.zeros_like(test_y)) + 0.3
    assert result.offsets[0] == 0.0 and 0.0 < result.oof_objective <= 1.0


def test_sample_weights_reach_the_model() -> None:
    texts, y = synthetic(300, seed=8, classes=(0, 1, 2))
    x = TextFeatures().fit_transform(texts)
    plain = OneVsRestNB(c=1.0, seed=0, nb=False).fit(x, y).decision_function(x)
    # Rows of class 1 weigh ~nothing: the class-1 model separates them less.
    light = np.where(y == 1, 1e-3, 1.0)
    weighted = OneVsRestNB(c=1.0, seed=0, nb=False).fit(x, y, light).decision_function(x)

    def separation(m: np.ndarray) -> float:
        return float(m[y == 1, 1].mean() - m[y != 1, 1].mean())

    assert separation(weighted) < separation(plain) - 0.2  # ignored weights would leave it equal
    again = OneVsRestNB(c=1.0, seed=0, nb=False).fit(x, y, np.ones(len(y))).decision_function(x)
    np.testing.assert_allclose(again, plain, rtol=1e-6, atol=1e-6)


def test_counted_features_append_the_counter_columns() -> None:
    feats = CountedFeatures(slur_features)
    x = feats.fit_transform(["those fags again", "nice hand", "white trash everywhere"])
    plain = TextFeatures().fit_transform(["those fags again", "nice hand", "white trash everywhere"])
    assert x.shape[1] == plain.shape[1] + 2
    np.testing.assert_array_equal(x[:, -2].toarray().ravel(), [1.0, 0.0, 1.0])
    held = feats.transform(["nothing here", "RETARDS"])
    np.testing.assert_array_equal(held[:, -2].toarray().ravel(), [0.0, 1.0])


def test_slur_features_count_words_plurals_and_phrases_not_substrings() -> None:
    assert slur_features("you redneck") == (1.0, pytest.approx(np.log1p(1)))
    assert slur_features("Rednecks and white trash")[0] == 1.0
    assert slur_features("Rednecks and white trash")[1] == pytest.approx(np.log1p(2))
    assert slur_features("crackerjack snacks, homogeneous mix") == (0.0, 0.0)


def test_davidson_agreement_is_the_winning_share(tmp_path: Path) -> None:
    folder = tmp_path / "davidson"
    folder.mkdir()
    (folder / "labeled_data.csv").write_text(
        ",count,hate_speech,offensive_language,neither,class,tweet\n"
        "0,3,0,0,3,2,hello there\n1,3,1,2,0,1,you idiot\n2,6,2,2,2,0,tie\n",
        encoding="utf-8",
    )
    assert davidson_agreement(tmp_path) == pytest.approx([1.0, 2 / 3, 1 / 3])


def test_davidson_hate_share_is_the_hate_vote_share(tmp_path: Path) -> None:
    folder = tmp_path / "davidson"
    folder.mkdir()
    (folder / "labeled_data.csv").write_text(
        ",count,hate_speech,offensive_language,neither,class,tweet\n"
        "0,3,0,0,3,2,hello there\n1,3,1,2,0,1,you idiot\n2,6,4,2,0,0,hateful\n",
        encoding="utf-8",
    )
    assert davidson_hate_share(tmp_path) == pytest.approx([0.0, 1 / 3, 4 / 6])


def test_hate_features_tell_slur_kinds_and_group_attacks_apart() -> None:
    # columns: slur, log(1+slurs), racial, sexuality, other, log(1+groups), group+hostile, group+slur
    assert hate_features("kill all the immigrants")[5:] == (pytest.approx(np.log1p(1)), 1.0, 0.0)
    assert hate_features("those faggots again")[2:5] == (0.0, 1.0, 0.0)
    assert hate_features("rednecks everywhere")[2:5] == (0.0, 0.0, 1.0)
    assert hate_features("the muslims and those spics")[2] == 1.0
    assert hate_features("the muslims and those spics")[7] == 1.0
    # A group named without a hostile word or a slur is only a mention.
    assert hate_features("white wins the hand, black folds")[5:] == (pytest.approx(np.log1p(2)), 0.0, 0.0)
    assert hate_features("I hate this river card") == (0.0,) * 8
    assert hate_features("ok")[:2] == slur_features("ok")


def test_out_of_fold_scores_accept_a_regression_target() -> None:
    texts, y = synthetic(300, seed=9, classes=(0, 1, 2))
    share = (y == 2).astype(np.float64)
    scores = out_of_fold_scores(
        texts,
        y,
        make_features=TextFeatures,
        make_model=partial(Ridge, alpha=1.0),
        seed=0,
        folds=3,
        target=share,
    )
    assert scores.shape == (300,)
    # Out of fold, the regressor still ranks class-2 texts above the rest.
    assert roc_auc_score(y == 2, scores) > 0.8


def test_floor_objective_prefers_any_decision_that_meets_the_floor() -> None:
    y = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1], dtype=np.int64)
    everything_one = np.ones_like(y)  # macro-F1 ~0.44, class-0 F1 0
    perfect = y.copy()
    objective = floor_objective(lambda t, p: float(f1_score(t == 0, p == 0)), macro_f1, 0.9)
    assert objective(y, perfect) == pytest.approx(1.0)
    assert objective(y, everything_one) < 0.0  # below the floor: guard - 1
    lenient = floor_objective(lambda t, p: float(f1_score(t == 0, p == 0)), macro_f1, 0.3)
    assert lenient(y, everything_one) == 0.0  # above the floor: the primary, however poor


def _stack_members(train_x: list[str], test_x: list[str], train_y: np.ndarray) -> tuple[Member, ...]:
    return (
        Member(train_x, test_x, make_features=TextFeatures, make_model=partial(OneVsRestNB, c=4.0, seed=0),
               weights=np.ones(len(train_y))),
        Member(train_x, test_x, make_features=TextFeatures,
               make_model=partial(LinearSVC, C=0.3, class_weight="balanced", random_state=0)),
        Member(train_x, test_x, make_features=TextFeatures, make_model=partial(Ridge, alpha=1.0),
               target=(train_y == 1).astype(np.float64)),
    )  # fmt: skip


def test_stacked_recipe_learns_with_a_regressor_member_and_tunes_on_train_only() -> None:
    train_x, train_y = synthetic(900, seed=5, classes=(0, 0, 0, 1, 2))
    test_x, test_y = synthetic(400, seed=6, classes=(0, 0, 0, 1, 2))
    result = stacked_recipe(
        _stack_members(train_x, test_x, train_y), train_y, test_y, objective=macro_f1, seed=0, folds=3
    )
    assert macro_f1(result.y_true, result.y_pred) > macro_f1(test_y, np.zeros_like(test_y)) + 0.3
    assert set(np.unique(result.y_pred)) == {0, 1, 2}
    assert result.offsets[0] == 0.0 and 0.0 < result.oof_objective <= 1.0


def test_stacked_recipe_leans_on_the_member_that_carries_the_signal() -> None:
    train_x, train_y = synthetic(900, seed=5, classes=(0, 0, 0, 1, 2))
    test_x, test_y = synthetic(400, seed=6, classes=(0, 0, 0, 1, 2))
    # A member that sees shuffled texts carries no signal; the stacker must not average it in evenly.
    rng = random.Random(3)
    noise_train, noise_test = rng.sample(train_x, len(train_x)), rng.sample(test_x, len(test_x))
    noise = Member(
        noise_train, noise_test, make_features=TextFeatures, make_model=partial(OneVsRestNB, c=4.0, seed=0)
    )
    signal = _stack_members(train_x, test_x, train_y)[0]
    alone = stacked_recipe([noise], train_y, test_y, objective=macro_f1, seed=0, folds=3)
    both = stacked_recipe([noise, signal], train_y, test_y, objective=macro_f1, seed=0, folds=3)
    assert macro_f1(both.y_true, both.y_pred) > macro_f1(alone.y_true, alone.y_pred) + 0.3
    assert macro_f1(both.y_true, both.y_pred) > 0.7
