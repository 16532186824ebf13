"""Model providers: the Messages API through the anthropic SDK, Amazon Bedrock, or a
scripted replay. The loop talks to a `Provider` and never to an SDK directly."""
