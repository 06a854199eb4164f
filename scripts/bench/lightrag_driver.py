"""LightRAG's side of the side-by-side benchmark (run by scripts/bench/side-by-side.ts, never alone).

Ingests a corpus with lightrag-hku, its LLM and embedding functions answering through the mock bridge
(scripts/bench/lightrag-bridge.ts), then asks every question in every mode for the context only, and writes
a JSON report: ingest wall time, documents, chunks, peak RSS, query latencies and contexts.

The tokenizer is cl100k_base built from a ranks file the caller writes (tiktoken cannot download here).
Everything not set below is LightRAG's default: chunking (1200 tokens, 100 overlap), one gleaning pass, the
summary thresholds, and the vector stores' cosine cut-off (0.2, the same as kgrag's).
"""

import argparse
import asyncio
import json
import logging
import os
import resource
import shutil
import time

import aiohttp
import numpy as np
import tiktoken
from tiktoken.load import load_tiktoken_bpe

from lightrag import LightRAG, QueryParam
from lightrag.utils import EmbeddingFunc, Tokenizer

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


def cl100k(ranks_file: str) -> tiktoken.Encoding:
    ranks = load_tiktoken_bpe(ranks_file)
    special = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
    return tiktoken.Encoding(name="cl100k_base_offline", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=special)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bridge", required=True)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--ranks", required=True)
    args = parser.parse_args()
    logging.getLogger("lightrag").setLevel(logging.WARNING)

    with open(args.input, encoding="utf-8") as f:
        spec = json.load(f)
    settings = spec["settings"]
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir, exist_ok=True)

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64), timeout=aiohttp.ClientTimeout(total=600))

    async def post(path: str, body: dict) -> dict:
        async with session.post(args.bridge + path, json=body) as res:
            res.raise_for_status()
            return await res.json()

    async def llm(prompt, system_prompt=None, history_messages=None, keyword_extraction=False, **kwargs) -> str:
        history = [{"role": m.get("role"), "content": m.get("content")} for m in (history_messages or [])]
        out = await post("/llm", {"prompt": prompt, "system_prompt": system_prompt, "history": history})
        return out["text"]

    async def embed(texts: list[str], **kwargs) -> np.ndarray:
        out = await post("/embed", {"texts": list(texts)})
        return np.array(out["vectors"], dtype=np.float32)

    rag = LightRAG(
        working_dir=args.workdir,
        llm_model_func=llm,
        llm_model_name="mock-llm",
        llm_model_max_async=settings["llm_concurrency"],
        embedding_func=EmbeddingFunc(embedding_dim=256, max_token_size=8192, func=embed),
        embedding_func_max_async=settings["embedding_concurrency"],
        embedding_batch_num=settings["embedding_batch"],
        max_parallel_insert=settings["documents_in_flight"],
        tokenizer=Tokenizer(model_name="cl100k_base", tokenizer=cl100k(args.ranks)),
    )
    await rag.initialize_storages()

    documents = spec["documents"]
    started = time.perf_counter()
    await rag.ainsert([d["content"] for d in documents], ids=[d["id"] for d in documents], file_paths=[d["title"] for d in documents])
    ingest_s = time.perf_counter() - started
    ingest_rss = peak_rss_mb()
    # Queries are timed without simulated latency on both sides: what is left is the engine's own work.
    await post("/latency", {"ms": 0})

    budget = settings["budget"]
    queries = []
    for mode in settings["modes"]:
        for q in spec["questions"]:
            param = QueryParam(
                mode=mode,
                only_need_context=True,
                top_k=settings["top_k"],
                chunk_top_k=settings["chunk_top_k"],
                max_entity_tokens=budget["entities"],
                max_relation_tokens=budget["relationships"],
                max_total_tokens=budget["total"],
                enable_rerank=False,
            )
            t = time.perf_counter()
            context = await rag.aquery(q["question"], param=param)
            queries.append({"mode": mode, "id": q["id"], "ms": (time.perf_counter() - t) * 1000, "context": context if isinstance(context, str) else str(context)})

    await rag.finalize_storages()
    await session.close()
    chunks = None
    chunk_file = os.path.join(args.workdir, "kv_store_text_chunks.json")
    if os.path.exists(chunk_file):
        with open(chunk_file, encoding="utf-8") as f:
            chunks = len(json.load(f))
    report = {
        "ingest_s": ingest_s,
        "documents": len(documents),
        "chunks": chunks,
        "peak_rss_ingest_mb": ingest_rss,
        "peak_rss_mb": peak_rss_mb(),
        "queries": queries,
    }
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(report, f)


if __name__ == "__main__":
    asyncio.run(main())
