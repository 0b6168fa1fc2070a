"""The consumers' side of the admin policy: fetched from a live API at start, polled, and a new
revision stops the lanes so `railbird consume` rebuilds them with it; thresholds reach the model."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
from api_support import SERVICE_TOKEN

from api.app import create_app
from api.policy.rules import PolicySettings
from railbird.commands.consume import PolicyWatch
from railbird.settings import Settings
from railbird.wiring import fetch_policy, load_chat_classifier, rules_from
from tests.live_server import serve_app


def test_fetch_policy_from_a_live_api_and_fall_back_when_it_is_down(engine, app_config, users, tmp_path: Path):
    settings = Settings(env="test", data_dir=tmp_path, service_token=SERVICE_TOKEN, relay_enabled=False)
    app = create_app(settings=settings, config=app_config, engine=engine, run_migrations=False)
    adm = users.headers("admin")
    with serve_app(app) as base:
        consumer = settings.model_copy(update={"api_url": base})
        assert fetch_policy(consumer) == (0, PolicySettings("id-vi-2022-09-28"))
        r = httpx.patch(f"{base}/v1/admin/policy", headers=adm, timeout=10,
                        json={"rules_version": "uk-2022-09-28", "auto_mute_enabled": False, "reason": "launch"})
        assert r.status_code == 200, r.text
        fetched = fetch_policy(consumer)
    assert fetched is not None and fetched[0] == 1
    rules = rules_from(consumer, fetched[1])
    assert rules.version == "uk-2022-09-28" and "vip" in rules.exempt_formats
    assert fetch_policy(consumer) is None  # server gone: the settings apply
    assert rules_from(consumer).version == "id-vi-2022-09-28"


def test_watch_stops_the_lanes_on_a_new_revision_only():
    answers = iter([None, (0, PolicySettings("id-vi-2022-09-28")), (2, PolicySettings("uk-2022-09-28"))])
    calls: list[int] = []

    def fetch() -> tuple[int, PolicySettings] | None:
        calls.append(1)
        return next(answers, None)

    stop = threading.Event()
    watch = PolicyWatch(fetch, revision=0, every_s=0.01)
    watch.start(stop)
    assert stop.wait(5), "a new revision must stop the lanes"
    assert len(calls) == 3 and watch.latest == (2, PolicySettings("uk-2022-09-28"))
    quiet = PolicyWatch(fetch, revision=0, every_s=0)
    quiet.start(threading.Event())
    assert quiet.latest is None


def test_threshold_overrides_reach_the_chat_model(tmp_path: Path):
    settings = Settings(env="test", data_dir=tmp_path)
    default = load_chat_classifier(settings)
    text = ["you are a stupid idiot"]
    verdict = default.classify(text)[0]
    assert "insult" in verdict.flagged
    # An override above the line's score (insult head, or the toxic head backing its listed word):
    # halfway from that score to 1, so the test holds whatever the shipped model scores below 1.
    score = max(verdict.scores["insult"], verdict.scores.get("toxic", 0.0))
    assert score < 1.0
    high = score + (1.0 - score) / 2
    tuned = load_chat_classifier(settings, {"insult": high, "threat": 0.3})
    base = default.model.thresholds  # type: ignore[attr-defined]
    got = tuned.model.thresholds  # type: ignore[attr-defined]
    assert got["insult"] == high and got["threat"] == 0.3 and got["hate"] == base["hate"]
    assert "insult" not in tuned.classify(text)[0].flagged
