"""The judge: prompt rendering, the Claude client (Anthropic API or Bedrock) and the offline heuristic judge.

Import ``session_scoring.judge.factory`` to build one; the Anthropic SDK is imported only when an LLM judge is built,
so the API function never loads it.
"""
