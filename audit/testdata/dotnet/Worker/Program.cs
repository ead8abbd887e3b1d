using System.Net.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Http.Resilience;
using Polly;
using Polly.Retry;

var services = new ServiceCollection();

// Every call through this client: the standard handler's 3 retries.
services.AddHttpClient("anthropic", c => c.BaseAddress = new Uri(@"https://api.anthropic.com/"))
    .AddStandardResilienceHandler();

services.AddHttpClient("openai")
    .AddStandardResilienceHandler(o => o.Retry.MaxRetryAttempts = 5);

var pipeline = new ResiliencePipelineBuilder()
    .AddRetry(new RetryStrategyOptions { MaxRetryAttempts = Settings.SummaryRetries })
    .Build();

var legacy = Policy
    .Handle<HttpRequestException>()
    .WaitAndRetryAsync(4, attempt => TimeSpan.FromSeconds(Math.Pow(2, attempt)));

var forever = Policy.Handle<TimeoutException>().RetryForeverAsync();

static class Settings
{
    public const int SummaryRetries = 2;
}
