"""The pages (phone, board, host): a blueprint the app factory registers."""

from flask import Blueprint

bp = Blueprint("pages", __name__)
