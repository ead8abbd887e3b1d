using System;
using System.Net.Http;
using System.Threading.Tasks;

namespace Worker;

public sealed class Summarizer
{
    private const string Pattern = @"C:\models\";
    private readonly HttpClient _http;

    public Summarizer(HttpClient http) => _http = http;

    public async Task<string> SummarizeAsync(string text, int maxAttempts = 3)
    {
        for (var attempt = 1; attempt <= maxAttempts; attempt++)
        {
            try
            {
                var res = await _http.PostAsync("v1/messages", new StringContent(text));
                res.EnsureSuccessStatusCode();
                return await res.Content.ReadAsStringAsync();
            }
            catch (HttpRequestException) when (attempt < maxAttempts)
            {
                await Task.Delay(TimeSpan.FromSeconds(attempt));
            }
        }
        throw new InvalidOperationException("unreachable");
    }
}
