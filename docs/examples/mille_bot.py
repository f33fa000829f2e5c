#!/usr/bin/env python3
"""A Mille Bornes bot for a mille table server, in Python with `websockets`
(pip install websockets). It signs in as a bot, accepts every invitation to
a game of mille, plays a random legal move whenever its seat has one, says
`ready` between hands, and exits when the connection closes.

    python3 mille_bot.py ws://localhost:8780/ws --name pybot --owner ann
"""
import argparse, asyncio, json, os, random, sys, time
import websockets

async def play(url, name, owner, arena):
    token_file = f"{name}.token"  # the server's proof that the name is ours
    token = open(token_file).read().strip() if os.path.exists(token_file) else None
    async with websockets.connect(url) as ws:
        pace = {"gap": 0.1, "last": 0.0}  # the server drops messages over its rate
        async def send(**message):  # every message is one JSON object
            wait = pace["last"] + pace["gap"] - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            pace["last"] = time.monotonic()
            await ws.send(json.dumps(message))
        await send(type="hello", version=1, name=name, token=token, client="mille_bot.py",
                   bot={"owner": owner, "description": "plays a random legal move", "arena": arena})
        move_id = int(time.time() * 1000)  # ids must be new, even after a restart
        done = {}  # table -> the observation last answered (an update may repeat one)
        welcomed = False
        # websockets pings the server every 20 s, which keeps an idle bot connected.
        async for text in ws:
            message = json.loads(text)
            kind = message.get("type")
            if kind == "welcome":
                welcomed = True
                pace["gap"] = 1.1 / message["limits"]["messages_per_second"]
                with open(token_file, "w") as f:
                    f.write(message["token"])
                for seat in message["seats"]:  # back to the games of an earlier run
                    await send(type="join", table=seat["table"], seat=seat["seat"])
            elif kind == "invited":
                table = message["table"]
                if table["game"] == "mille":
                    await send(type="accept", table=table["id"])
                else:
                    await send(type="decline", table=table["id"], reason="I play mille only")
            elif kind in ("joined", "update"):
                table, seen = message["table"], message["observation"]
                status = seen["status"]  # what the game waits for
                mark = json.dumps([message["seq"], status, seen["legal"]], sort_keys=True)
                if done.get(table) == mark:
                    continue  # already answered (this update only tells who sits where)
                done[table] = mark
                if status["phase"] == "hand_over":  # between hands: deal the next one
                    await send(type="ready", table=table)
                elif status["phase"] == "game_over":
                    print(f"table {table}: the game is over", file=sys.stderr)
                elif seen["legal"]:  # our turn: any element of "legal" is a move
                    move_id += 1
                    await send(type="move", table=table, id=move_id,
                               action=random.choice(seen["legal"]))
            elif kind == "error":  # a refusal: say it, and answer the next update afresh
                if not welcomed:  # hello refused (name taken, bad token...): give up
                    raise SystemExit(f"refused: {message['message']}")
                print(f"refused: {message['message']}", file=sys.stderr)
                done.pop(message.get("table"), None)  # e.g. "waiting": a seat is still free
            # Anything else (acks, lists, other news) needs no answer.

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="A random Mille Bornes bot.")
    parser.add_argument("url", nargs="?", default="ws://localhost:8780/ws")
    parser.add_argument("--name", required=True)
    parser.add_argument("--owner", default=os.environ.get("USER") or "unknown")
    parser.add_argument("--arena", action="store_true", help="enter the server's arena")
    args = parser.parse_args()
    try:
        asyncio.run(play(args.url, args.name, args.owner, args.arena))
    except (websockets.ConnectionClosed, KeyboardInterrupt):
        pass
