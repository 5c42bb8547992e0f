#!/usr/bin/env python3
"""Ends every session a test stack still has, as its superadmin: a test run killed midway
leaves its jobs' sessions holding the agent's CPUs, and the next run's jobs would wait
behind them. Forced DELETE of each session not yet ended, of every user.

  . ci/backendai/env.sh && python3 ci/backendai/purge-sessions.py [API-VERSION]
"""
import json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bai_req import call

ENDED = {"TERMINATED", "CANCELLED", "ERROR"}
QUERY = """query($offset: Int!) { compute_session_list(limit: 100, offset: $offset) {
             total_count items { id name status access_key } } }"""


def sessions(ep, ak, sk, version):
    found, offset = [], 0
    while True:
        st, txt = call(ep, ak, sk, "POST", "/admin/gql",
                       {"query": QUERY, "variables": {"offset": offset}}, version)
        if st != 200:
            sys.exit(f"purge-sessions: listing sessions: {st} {txt[:300]}")
        page = json.loads(txt)
        if page.get("errors"):
            sys.exit(f"purge-sessions: listing sessions: {page['errors']}")
        items = page["data"]["compute_session_list"]["items"]
        found += items
        offset += len(items)
        if not items or offset >= page["data"]["compute_session_list"]["total_count"]:
            return found


def main():
    ep = os.environ["BACKEND_ENDPOINT"]
    ak, sk = os.environ["BAI_ADMIN_ACCESS_KEY"], os.environ["BAI_ADMIN_SECRET_KEY"]
    version = sys.argv[1] if len(sys.argv) > 1 else "v7.20230615"

    def not_ended():
        return [s for s in sessions(ep, ak, sk, version) if s["status"] not in ENDED]

    live = not_ended()
    for s in live:
        path = f"/session/{s['name']}?forced=true&owner_access_key={s['access_key']}"
        st, txt = call(ep, ak, sk, "DELETE", path, None, version)
        print(f"purge-sessions: {s['name']} ({s['status']}): {st}")
    # The agent frees the containers' slots a moment after the manager marks them ended.
    deadline = time.time() + 120
    while live and time.time() < deadline:
        time.sleep(2)
        live = not_ended()
    if live:
        sys.exit("purge-sessions: still not ended after 120 s: "
                 + ", ".join(f"{s['name']} ({s['status']})" for s in live))


if __name__ == "__main__":
    main()
