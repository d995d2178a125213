"""The loopback provider fixture itself, reached through llm's own OpenAI plugin."""

from __future__ import annotations

import http.client
import json

import llm
import pytest
from provider_server import ProviderServer


def _post(server: ProviderServer, body: dict) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    return answer.status, dict(answer.getheaders()), data


def test_llm_reaches_the_server_plainly_and_by_events(provider_model: ProviderServer) -> None:
    model = llm.get_model("fake")
    plain = model.prompt("hello there", stream=False)
    assert plain.text() == "echo: hello there"
    assert (plain.usage().input, plain.usage().output) == (2, 3)
    streamed = model.prompt("one two three", stream=True)
    assert list(streamed) == ["echo: ", "one ", "two ", "three"]
    assert streamed.usage().output == 4
    assert [r.stream for r in provider_model.requests] == [False, True]


def test_failures_with_status_and_headers_then_success(provider: ProviderServer) -> None:
    provider.fail(2, 429, {"Retry-After": "3"})
    first = _post(provider, {"model": "m", "messages": [{"role": "user", "content": "x"}]})
    assert first[0] == 429 and first[1]["Retry-After"] == "3"
    assert json.loads(first[2])["error"]["type"] == "rate_limit_exceeded"
    assert _post(provider, {"model": "m", "messages": []})[0] == 429
    assert _post(provider, {"model": "m", "messages": []})[0] == 200
    assert provider.count == 3


def test_unknown_model_context_length_and_malformed(provider: ProviderServer) -> None:
    provider.configure(models={"fake"}, context_limit=3)
    status, _, data = _post(provider, {"model": "other", "messages": []})
    assert status == 404 and json.loads(data)["error"]["code"] == "model_not_found"
    status, _, data = _post(provider, {"model": "fake", "messages": [{"role": "user", "content": "a b c d"}]})
    assert status == 400 and "maximum context length is 3 tokens" in json.loads(data)["error"]["message"]
    provider.malform()
    status, _, data = _post(provider, {"model": "fake", "messages": []})
    with pytest.raises(ValueError):
        json.loads(data)


def test_a_dropped_stream_and_a_client_hanging_up(provider_model: ProviderServer) -> None:
    provider_model.drop()
    model = llm.get_model("fake")
    with pytest.raises(Exception):  # noqa: B017 - the SDK's own error for a cut-off stream
        "".join(model.prompt("a b c", stream=True))
    provider_model.configure(delay=2.0)
    conn = http.client.HTTPConnection("127.0.0.1", provider_model.port, timeout=5)
    conn.request("POST", "/v1/chat/completions", json.dumps({"model": "fake", "messages": []}))
    conn.close()  # the client hangs up while the server is still "generating"
    assert provider_model.wait_for(lambda: provider_model.hangups == 1)
