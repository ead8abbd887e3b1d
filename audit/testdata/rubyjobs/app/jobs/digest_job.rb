# A nightly digest. Sidekiq's default retry count applies.
class DigestJob
  include Sidekiq::Job

  def perform(user_id)
    Digest.deliver(user_id)
  end
end
