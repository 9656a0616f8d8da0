"""Kalimambo: web, the table in Flask, in rooms (README "Architecture").

  core/     the table's pure core: state machine, plans, happenings, views, seats
  table/    the running table around it: Table, computer players, hints, replays, day
  live/     the hub: the table with its event streams and the lights socket
  storage/  the SQLite store and the archive added up from it
  http/     the Flask app, its routes and its edge (door, guard, limits)
  system/   around the worker: start-up checks, systemd, the address, the lights child
"""
