"""`railbird admin`: create users and tokens, revoke tokens, seed demo users (never in production)."""

from __future__ import annotations

import argparse
import secrets
import sys
from datetime import timedelta

from sqlalchemy.orm import Session

from api.auth import service as auth
from api.db import make_engine, make_sessions, migrate
from api.errors import ServiceError
from api.ids import utc_now
from railbird.settings import Settings

DEMO_USERS = ("analyst", "moderator", "senior", "admin")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Subcommands: create-user, create-token, revoke-token, seed-demo."""
    sub = parser.add_subparsers(dest="action", required=True)
    user = sub.add_parser("create-user", help="create a user")
    user.add_argument("--username", required=True)
    user.add_argument("--role", required=True, choices=["analyst", "moderator", "senior", "service", "admin"])
    user.add_argument("--password", default=None, help="password (prefer --password-stdin)")
    user.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    token = sub.add_parser("create-token", help="issue an API token for a user (e.g. a game server)")
    token.add_argument("--username", required=True)
    token.add_argument("--label", default="")
    token.add_argument("--ttl-days", type=int, default=365)
    revoke = sub.add_parser("revoke-token", help="revoke a token by id")
    revoke.add_argument("--token-id", required=True)
    sub.add_parser("seed-demo", help="create demo users with printed passwords (not in production)")


def run(args: argparse.Namespace, settings: Settings) -> int:
    """Dispatch the subcommand; service errors print a message and exit 1."""
    engine = make_engine(settings.resolved_database_url())
    migrate(engine)
    try:
        with make_sessions(engine)() as session:
            if args.action == "create-user":
                password = sys.stdin.readline().rstrip("\n") if args.password_stdin else args.password
                user = auth.create_user(session, username=args.username, role=args.role, password=password,
                                        actor="cli", now=utc_now())
                print(f"created {user.role} {user.username} ({user.id})")
            elif args.action == "create-token":
                return _create_token(session, args)
            elif args.action == "revoke-token":
                token = auth.revoke_token(session, token_id=args.token_id, actor="cli", now=utc_now())
                print(f"revoked {token.id}")
            else:
                return _seed_demo(session, settings)
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    return 0


def _create_token(session: Session, args: argparse.Namespace) -> int:
    user = auth.user_by_name(session, args.username)
    if user is None:
        print(f"error: no user {args.username!r}", file=sys.stderr)
        return 1
    now = utc_now()
    raw, token = auth.issue_token(session, user=user, kind="api", label=args.label,
                                  ttl=timedelta(days=args.ttl_days), now=now)
    auth.audit_token(session, token=token, actor="cli", now=now)
    print(f"token id {token.id} (expires {token.expires_at.isoformat()}); the token, shown once:\n{raw}")
    return 0


def _seed_demo(session: Session, settings: Settings) -> int:
    if settings.env == "production":
        print("error: seed-demo refuses to run with RAILBIRD_ENV=production", file=sys.stderr)
        return 1
    lines = []
    for role in DEMO_USERS:
        if auth.user_by_name(session, role) is not None:
            lines.append(f"  {role:<10} (exists; password unchanged)")
            continue
        password = f"{role}-{secrets.token_hex(4)}"
        auth.create_user(session, username=role, role=role, password=password, actor="seed-demo", now=utc_now())
        lines.append(f"  {role:<10} password {password}")
    print("Demo logins (username = role):\n" + "\n".join(lines))
    return 0
