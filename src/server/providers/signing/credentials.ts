/** An Alibaba Cloud AccessKey: signs ACS3 requests (Aliyun SMS, Aliyun Captcha). */
export interface AliyunCredentials {
  accessKeyId: string;
  accessKeySecret: string;
}

/** A Tencent Cloud API key: signs TC3 requests (Tencent SMS, Tencent Captcha). */
export interface TencentCredentials {
  secretId: string;
  secretKey: string;
}
