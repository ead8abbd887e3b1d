class ReportJob
  include Sidekiq::Job
  sidekiq_options queue: :reports, retry: 5

  def perform(session_id)
    ReportBuilder.new(session_id).call
  end
end
