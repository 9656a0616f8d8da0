"""Kalimambo: web."""

if __name__ != "kalimambo.web":  # reached as "web" from the checkout's root, say
    raise ImportError(f"import kalimambo.web, not {__name__}: one module, one name (README)")
