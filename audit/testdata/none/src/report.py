import requests


def fetch(url):
    # retry? no: the caller decides
    return requests.get(url, timeout=5).json()
