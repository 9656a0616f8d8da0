"""Kalimambo firmware: the Pi side of the table (docs/CONTRACTS.md "Lights").

  hardware.py   the board file (TOML) read into a HardwareConfig: checked key by key,
                errors name the key
  scene.py      what stands where, and the strip colours for it
  steps.py      one animation step per engine event (move, dung, rhino run, ...)
  show.py       the state machine: steady picture, queued steps, attract, celebration
  output.py     layout (space -> LEDs), gamma, and the power limiter
  backends.py   sim, pio (Pi 5 /dev/leds0), ws281x (rpi-ws281x, imported lazily), auto
  lights.py     all of it on a background thread
  controls.py   buttons and buzzer (gpiozero)
  power.py      the Pi's under-voltage flags (/sys) and the strip's estimated current
  agent.py      the lights process (``kalimambo lights``): lights and controls, driven
                by the table over a Unix socket (docs/LIGHTS-PROTOCOL.md)
  wire.py       that socket's wire format; standard library only, so the table imports it
  cli.py        ``kalimambo leds``: test, walk, calibrate, bench
  calibrate.py  the phone page that maps LEDs to spaces; hardwarewrite.py saves the map
  bench.py      frame time and CPU share (also ``python -m bench.leds``)
"""
