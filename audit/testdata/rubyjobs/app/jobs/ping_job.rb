class PingJob
  include Sidekiq::Job
  sidekiq_options retry: false

  def perform
    Health.ping
  end
end
