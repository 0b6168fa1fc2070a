"""`snapcam.coordinated_reports`: many reports against one player from accounts that act as a group.

False reporting to get a rival's SnapCam revoked needs several accounts. What the stream shows of
a link between two reporters: they report the same targets more often than chance (hypergeometric
tail against the effective number of players reported in the window, beyond the current target), and they report within seconds of each
other more often than reporters of the same targets generally do (binomial tail, rate estimated from
all reporters of those targets: honest reports of one incident bunch up too). A pair is linked when the smaller p-value,
Bonferroni-corrected for the two tests and the pairs examined, is below `alpha`; a finding needs a
linked group that files at least `min_share` of the reports against the target.
A ring's first attack has no shared history yet; what it does show is several accounts pasting one
comment word for word about clips with nothing to transcribe (`_copy_test`), so a group can also be
found by that.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations

from pipeline.contracts import SNAPCAM, Event, SnapCamReport
from pipeline.detectors.chat.credibility import ReporterCredibility
from pipeline.detectors.chat.evidence import make_finding
from pipeline.detectors.chat.state import BoundedMap, Window
from pipeline.findings import Finding

TEXT_PRIOR_SHARE = 0.02
"""Share of reports assumed to carry any one comment text before the window has seen enough."""
TEXT_PRIOR_WEIGHT = 50.0
"""How many reports that assumption is worth against the window's own counts."""


@dataclass(slots=True)
class DistinctInWindow:
    """Number of distinct keys seen within `span` of the newest event, in O(1) amortised."""

    span: timedelta
    _events: deque[tuple[datetime, str]] = field(default_factory=deque)
    _counts: Counter[str] = field(default_factory=Counter)

    def add(self, ts: datetime, key: str) -> None:
        """Count one occurrence and forget those older than the window."""
        self._events.append((ts, key))
        self._counts[key] += 1
        cutoff = ts - self.span
        while self._events and self._events[0][0] < cutoff:
            _, old = self._events.popleft()
            self._counts[old] -= 1
            if self._counts[old] <= 0:
                del self._counts[old]

    def __len__(self) -> int:
        return len(self._counts)

    def count(self, key: str) -> int:
        """Occurrences of one key in the window."""
        return self._counts.get(key, 0)

    def total(self) -> int:
        """Occurrences in the window."""
        return len(self._events)

    def effective(self) -> float:
        """Effective number of keys, (sum c)^2 / sum c^2: a few popular targets count as few."""
        total = sum(self._counts.values())
        squares = sum(c * c for c in self._counts.values())
        return total * total / squares if squares else 0.0


@dataclass(frozen=True, slots=True)
class Link:
    """Why two reporters look linked."""

    a: str
    b: str
    shared_targets: int
    co_timed: int
    shared_venues: int
    p_value: float


def hypergeom_sf(k: int, population: int, n_a: int, n_b: int) -> float:
    """P(overlap >= k) of two random subsets of sizes n_a and n_b of `population` items."""
    if k <= 0:
        return 1.0
    top = min(n_a, n_b)
    if k > top or population <= 0:
        return 0.0
    log_total = _log_comb(population, n_b)
    terms = [_log_comb(n_a, i) + _log_comb(population - n_a, n_b - i) - log_total for i in range(k, top + 1)]
    return min(1.0, sum(math.exp(t) for t in terms if t > -700))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    p = min(1.0, max(0.0, p))
    return min(1.0, sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def _log_comb(n: int, k: int) -> float:
    if k < 0 or k > n:
        return -math.inf
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


@dataclass(slots=True)
class CoordinatedReportingDetector:
    """Global (one key): reporter histories and reported players over the window."""

    credibility: ReporterCredibility = field(default_factory=ReporterCredibility)
    window: timedelta = timedelta(days=7)
    co_window: timedelta = timedelta(seconds=120)
    min_reporters: int = 3
    min_share: float = 0.5
    alpha: float = 0.01
    max_reporters: int = 100_000
    max_pair_reporters: int = 40
    name: str = "snapcam.coordinated_reports"
    topics: frozenset[str] = frozenset({SNAPCAM})
    _by_reporter: BoundedMap[str, Window[SnapCamReport]] = field(init=False)
    _by_target: BoundedMap[str, Window[SnapCamReport]] = field(init=False)
    _targets: DistinctInWindow = field(init=False)
    _comments: DistinctInWindow = field(init=False)
    _reported: BoundedMap[str, frozenset[str]] = field(init=False)

    def __post_init__(self) -> None:
        self._by_reporter = BoundedMap(max_keys=self.max_reporters)
        self._by_target = BoundedMap(max_keys=self.max_reporters)
        self._targets = DistinctInWindow(self.window)
        self._comments = DistinctInWindow(self.window)
        self._reported = BoundedMap(max_keys=self.max_reporters)

    @property
    def state_window(self) -> timedelta:
        """Reporter histories span the window: a rebuild replays that much of the SnapCam
        re-key topic (reports are few; the keyed lane of chat is not affected)."""
        return self.window

    def key(self, event: Event) -> str:
        """One key: links span targets, and report volume is small enough for one partition."""
        return "snapcam"

    def process(self, event: Event) -> Sequence[Finding]:
        """Record the report; test the target's reporters for links; report a grown linked group."""
        if not isinstance(event, SnapCamReport):
            return ()
        self._remember(event)
        against = self._by_target.get(event.reported_id)
        reports = against.values() if against is not None else []
        # The most recent reporters only: pairs grow quadratically on a viral target.
        recent = list(dict.fromkeys(r.reporter_id for r in reversed(reports)))[: self.max_pair_reporters]
        reporters = sorted(recent)
        if len(reporters) < self.min_reporters:
            return ()
        pairs = list(combinations(reporters, 2))
        population = round(self._targets.effective())
        # Each pair's timing null reads the crowd around the same few targets: count them once.
        crowd: dict[str, tuple[int, int]] = {}
        links = [
            link
            for a, b in pairs
            if (link := self._link(a, b, event.reported_id, population, len(pairs), crowd)) is not None
        ]
        group = _largest_group(links)
        p_value = min((lk.p_value for lk in links if lk.a in group), default=1.0)
        together = self._group_test(reporters, event.reported_id)
        if together is not None and together[1] < p_value:
            group, p_value = together[0], together[1]
        share = sum(1 for r in reports if r.reporter_id in group) / len(reports)
        copied = self._copy_test(reports, event)
        if copied is not None and copied[1] < p_value:
            # A pasted wave is judged on its own stretch of time: two rings may pick one victim.
            group, p_value, together, share = copied[0], copied[1], None, copied[3]
        if len(group) < 2 or share < self.min_share or p_value >= self.alpha:
            return ()
        before = self._reported.get(event.reported_id)
        if before is not None and group <= before:
            return ()
        self._reported.put(event.reported_id, frozenset(group))
        shared = together[2] if together is not None and together[0] == group else None
        text = copied[2] if copied is not None and copied[0] == group else None
        links = [lk for lk in links if lk.a in group]
        return (self._finding(event, reports, group, links, share, p_value, shared, text),)

    def _copy_test(
        self, reports: list[SnapCamReport], event: SnapCamReport
    ) -> tuple[set[str], float, str, float] | None:
        """Accounts filing word for word the same comment, about clips with nothing to transcribe.

        Independent witnesses describe what they saw in their own words; a ring pastes one text.
        The wave is this report's: reports of the same text against the target, each within
        `co_window` of the previous; its share is taken over the reports filed around it.
        Null: each reporter's comment is drawn independently with that text's frequency among the
        window's reports against other players, smoothed towards `TEXT_PRIOR_SHARE` (so a text
        nobody else used is rare but not impossible, and a quiet window is not read as proof); c of k reporters using it is a binomial tail, Bonferroni-corrected
        for every text tested. Reports whose clip has a transcript are left out: there the clip
        itself is the evidence, and witnesses of one real incident often word it alike.
        """
        text = _comment_key(event.comment)
        if event.transcript or text.count(" ") < 1:
            return None
        same = sorted((r for r in reports if not r.transcript and _comment_key(r.comment) == text), key=lambda r: r.ts)
        waves: list[list[SnapCamReport]] = []
        for r in same:
            if not waves or r.ts - waves[-1][-1].ts > self.co_window:
                waves.append([])
            waves[-1].append(r)
        wave = next((w for w in waves if any(r.report_id == event.report_id for r in w)), [])
        who = {r.reporter_id for r in wave}
        if len(who) < self.min_reporters:
            return None
        around = [r for r in reports if wave[0].ts - self.co_window <= r.ts <= wave[-1].ts + self.co_window]
        k = len({r.reporter_id for r in around})
        others_total = max(0, self._comments.total() - len(reports))
        seen = max(0, self._comments.count(text) - len(same))
        frequency = (seen + TEXT_PRIOR_SHARE * TEXT_PRIOR_WEIGHT) / (others_total + TEXT_PRIOR_WEIGHT)
        tested = len({_comment_key(r.comment) for r in reports})
        p_value = min(1.0, tested * binom_sf(len(who), k, frequency))
        share = sum(1 for r in around if r.reporter_id in who) / len(around)
        return who, p_value, text, share

    def _group_test(self, reporters: list[str], target: str) -> tuple[set[str], float, str] | None:
        """The other target most of these reporters also reported, and how unlikely that is.

        Pairs see little in a small room; a whole group naming the same second player does. Under
        independence, a member with n other targets names player Y with probability
        1 - (1 - q_Y)^n, q_Y = Y's share of all reports in the window (a notorious player is named by
        many honest reporters); c of k members doing so is a binomial tail, Bonferroni-corrected
        for every candidate and test.
        """
        others = {r: {x.reported_id for x in self._history(r)} - {target} for r in reporters}
        counts = Counter(t for targets in others.values() for t in targets)
        if not counts:
            return None
        shared, c = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        if c < 2:
            return None
        against = self._by_target.get(shared)
        q = (len(against) if against is not None else c) / max(1, self._targets.total())
        p_each = sum(1 - (1 - q) ** len(t) for t in others.values()) / len(reporters)
        p_value = min(1.0, 2 * len(counts) * binom_sf(c, len(reporters), p_each))
        return {r for r, t in others.items() if shared in t}, p_value, shared

    def _remember(self, event: SnapCamReport) -> None:
        self._targets.add(event.ts, event.reported_id)
        self._comments.add(event.ts, _comment_key(event.comment))
        for store, key in ((self._by_reporter, event.reporter_id), (self._by_target, event.reported_id)):
            store.get_or_create(key, lambda: Window(span=self.window, max_items=256)).add(event.ts, event)

    def _link(
        self, a: str, b: str, target: str, population: int, n_pairs: int, crowd: dict[str, tuple[int, int]]
    ) -> Link | None:
        ra, rb = self._history(a), self._history(b)
        # The current target is shared by construction: test the overlap beyond it.
        targets_a = {r.reported_id for r in ra} - {target}
        targets_b = {r.reported_id for r in rb} - {target}
        shared = targets_a & targets_b
        if not shared:
            return None
        p_overlap = hypergeom_sf(len(shared), max(population - 1, len(targets_a | targets_b)), len(targets_a), len(targets_b))
        both = shared | {target}
        co_timed = sum(1 for t in both if _close(ra, rb, t, self.co_window))
        p_timing = binom_sf(co_timed, len(both), self._co_rate(both, crowd))
        p_value = min(1.0, 2 * n_pairs * min(p_overlap, p_timing))
        if p_value >= self.alpha:
            return None
        venues = _venues(ra) & _venues(rb)
        return Link(a, b, len(both), co_timed, len(venues), p_value)

    def _co_rate(self, targets: set[str], crowd: dict[str, tuple[int, int]]) -> float:
        """Chance two reports of one target by different reporters fall within `co_window`.

        Estimated from every reporter of these targets: honest reports of one incident bunch up
        too, so co-timing only counts as evidence when this pair is tighter than the crowd.
        `crowd` memoises each target's (close, total) pair counts within one report's tests.
        """
        close = total = 0
        for target in targets:
            counts = crowd.get(target)
            if counts is None:
                window = self._by_target.get(target)
                recent = window.values()[-64:] if window is not None else []
                counts = crowd[target] = _crowd_pairs(recent, self.co_window)
            close += counts[0]
            total += counts[1]
        floor = 2 * self.co_window / self.window
        # Laplace smoothing keeps one lucky pair from reading as certainty.
        return min(1.0, max(floor, (close + 1) / (total + 2)))

    def _history(self, reporter: str) -> list[SnapCamReport]:
        window = self._by_reporter.get(reporter)
        return window.values() if window is not None else []

    def _finding(
        self,
        event: SnapCamReport,
        reports: list[SnapCamReport],
        group: set[str],
        links: list[Link],
        share: float,
        p_min: float,
        shared: str | None,
        copied: str | None = None,
    ) -> Finding:
        cred = sum(self.credibility.of(r) for r in group) / len(group)
        score = min(0.99, (1.0 - p_min) * (0.55 + 0.3 * share) + 0.15 * (self.credibility.prior() - cred))
        members = sorted(group, key=lambda r: (-sum(1 for x in reports if x.reporter_id == r), r))
        return make_finding(
            detector=self.name,
            category="false_reporting",
            score=max(0.0, score),
            players=members,
            ts=event.ts,
            summary=(
                f"{len(group)} linked accounts filed {share:.0%} of {len(reports)} SnapCam reports "
                f"against {event.reported_id} (p={p_min:.2g})"
            ),
            id_parts=(event.reported_id, *sorted(group), reports[0].report_id),
            source_event_ids=[r.event_id for r in reports if r.reporter_id in group],
            evidence={
                "victims": [event.reported_id],
                "reports": [r.model_dump(mode="json") for r in reports if r.reporter_id in group][-20:],
                "statistic": {
                    "name": "reporter_linkage",
                    "value": round(share, 4),
                    "expected": None,
                    "p_value": p_min,
                    "null_model": "reporters choose targets independently (hypergeometric pair overlap, "
                    "binomial group overlap), report at independent times (binomial co-timing) and word "
                    "their comments independently (binomial, window-wide text frequency), Bonferroni-corrected",
                    "group_also_reported": shared,
                    "copied_comment": copied,
                    "links": [
                        {"a": lk.a, "b": lk.b, "shared_targets": lk.shared_targets, "co_timed": lk.co_timed,
                         "shared_venues": lk.shared_venues, "p_value": lk.p_value}
                        for lk in links
                    ],
                    "mean_credibility": round(cred, 3),
                },
            },
            window=(reports[0].ts, event.ts),
            table_id=event.table_id,
            tournament_id=event.tournament_id,
        )


def _comment_key(comment: str) -> str:
    """A comment compared word for word: case, punctuation and spacing do not make it original."""
    return " ".join("".join(c if c.isalnum() else " " for c in comment.casefold()).split())


def _crowd_pairs(reports: list[SnapCamReport], gap: timedelta) -> tuple[int, int]:
    """(pairs within `gap`, pairs) over reports by different reporters: every pair counted in one
    sweep of the sorted times, minus each reporter's own pairs (n log n, not n squared)."""
    by_reporter: dict[str, list[datetime]] = {}
    for r in reports:
        by_reporter.setdefault(r.reporter_id, []).append(r.ts)
    n = len(reports)
    close, total = _close_pairs(sorted(r.ts for r in reports), gap), n * (n - 1) // 2
    for times in by_reporter.values():
        close -= _close_pairs(sorted(times), gap)
        total -= len(times) * (len(times) - 1) // 2
    return close, total


def _close_pairs(times: list[datetime], gap: timedelta) -> int:
    """Pairs of sorted times at most `gap` apart."""
    count = lo = 0
    for hi, t in enumerate(times):
        while t - times[lo] > gap:
            lo += 1
        count += hi - lo
    return count


def _close(ra: list[SnapCamReport], rb: list[SnapCamReport], target: str, gap: timedelta) -> bool:
    times_a = [r.ts for r in ra if r.reported_id == target]
    times_b = [r.ts for r in rb if r.reported_id == target]
    return any(abs(x - y) <= gap for x in times_a for y in times_b)


def _venues(reports: list[SnapCamReport]) -> set[str]:
    return {v for r in reports for v in (r.table_id, r.tournament_id) if v is not None}


def _largest_group(links: list[Link]) -> set[str]:
    """Largest connected component of the link graph (union-find)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for link in links:
        parent[root(link.a)] = root(link.b)
    groups: dict[str, set[str]] = {}
    for member in parent:
        groups.setdefault(root(member), set()).add(member)
    return max(groups.values(), key=len, default=set())
